import Foundation

/// The first look at a request: which op, the client's id for it, and the principal an edge
/// acts for, so the router knows who calls before it picks the body type.
public struct RequestHead: Decodable, Sendable {
    public let op: String
    public let id: String?
    public let onBehalfOf: OnBehalfOf?

    public init(op: String, id: String?, onBehalfOf: OnBehalfOf? = nil) {
        self.op = op
        self.id = id
        self.onBehalfOf = onBehalfOf
    }
}

/// A request `{ "op": "...", "id": "...", "onBehalfOf": {...}, "body": {...} }` (`onBehalfOf`
/// only from the HTTP edge).
public struct Request<Body: Codable & Sendable>: Codable, Sendable {
    public var op: String
    public var id: String
    /// The principal the edge acts for; nil for every other client.
    public var onBehalfOf: OnBehalfOf?
    public var body: Body

    public init(op: String, id: String = UUID().uuidString.lowercased(), onBehalfOf: OnBehalfOf? = nil, body: Body) {
        self.op = op
        self.id = id
        self.onBehalfOf = onBehalfOf
        self.body = body
    }

    enum CodingKeys: String, CodingKey { case op, id, onBehalfOf, body }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        op = try c.decode(String.self, forKey: .op)
        id = try c.decodeIfPresent(String.self, forKey: .id) ?? ""
        onBehalfOf = try c.decodeIfPresent(OnBehalfOf.self, forKey: .onBehalfOf)
        // An op without parameters may leave the body out; `null` is read as absent (§1).
        if Body.self == Empty.self, try !c.contains(.body) || c.decodeNil(forKey: .body) {
            body = Empty() as! Body
        } else {
            body = try c.decode(Body.self, forKey: .body)
        }
    }
}

/// A body with no fields: an object (`{}`; members are ignored), or left out of a request.
public struct Empty: Codable, Sendable, Equatable {
    public init() {}

    /// Only an object: `"body": "x"` or `"body": 7` is a malformed request, not an empty one.
    public init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: NoKeys.self)
    }

    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: NoKeys.self)
    }

    private enum NoKeys: CodingKey {}
}

/// A reply: `{ "ok": true, "body": {...} }` or `{ "ok": false, "error": { "code", "message" } }`.
public struct Reply<Body: Codable & Sendable>: Codable, Sendable {
    public var ok: Bool
    public var body: Body?
    public var error: ServiceError?

    public static func success(_ body: Body) -> Reply { Reply(ok: true, body: body, error: nil) }
    public static func failure(_ error: ServiceError) -> Reply { Reply(ok: false, body: nil, error: error) }

    /// The body, or the error thrown.
    public func get() throws(ServiceError) -> Body {
        if ok, let body { return body }
        throw error ?? ServiceError(.internalError, "reply has neither body nor error")
    }
}
