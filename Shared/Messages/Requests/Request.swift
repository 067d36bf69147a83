import Foundation

/// The first look at a request: which op, and the client's id for it.
public struct RequestHead: Decodable, Sendable {
    public let op: String
    public let id: String?
}

/// A request `{ "op": "...", "id": "...", "body": {...} }`.
public struct Request<Body: Codable & Sendable>: Codable, Sendable {
    public var op: String
    public var id: String
    public var body: Body

    public init(op: String, id: String = UUID().uuidString.lowercased(), body: Body) {
        self.op = op
        self.id = id
        self.body = body
    }

    enum CodingKeys: String, CodingKey { case op, id, body }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        op = try c.decode(String.self, forKey: .op)
        id = try c.decodeIfPresent(String.self, forKey: .id) ?? ""
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
