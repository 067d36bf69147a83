import Foundation

/// The answer to one `ZhttpRequest`: `T` and a tnetstring dictionary with the request's `id`,
/// `code`, `reason`, `headers` and `body`, and the edge's instance as `from`. No `type` (a data
/// packet) and no `more`: Pushpin's req mode takes one whole response and refuses anything else.
/// GRIP instructions (`Grip-Hold`, `Grip-Channel`) travel as ordinary header fields.
public struct ZhttpResponse: Sendable, Equatable {
    public var id: [UInt8]
    public var from: [UInt8]?
    public var code: Int
    public var reason: String
    public var headers: HTTPHeaders
    public var body: [UInt8]

    /// A response as given.
    public init(id: [UInt8], from: [UInt8]? = nil, code: Int, reason: String, headers: HTTPHeaders, body: [UInt8]) {
        self.id = id
        self.from = from
        self.code = code
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    /// The message's one frame (the ROUTER's routing frames go before it).
    public var frame: Data {
        var members: [(key: String, value: TNetString)] = []
        if let from { members.append((key: "from", value: .bytes(from))) }
        members.append((key: "id", value: .bytes(id)))
        members.append((key: "code", value: .integer(Int64(code))))
        members.append((key: "reason", value: .text(reason)))
        members.append((key: "headers", value: .list(headers.fields.map { .list([.text($0.name), .text($0.value)]) })))
        members.append((key: "body", value: .bytes(body)))
        return Data([UInt8(ascii: "T")] + TNetString.dictionary(members).encoded())
    }

    /// Reads a response as Pushpin does (for tests and a fake Pushpin): nil when Pushpin would skip it.
    public static func decode(_ frame: Data, limits: TNetStringLimits = .zhttp) -> ZhttpResponse? {
        guard frame.first == UInt8(ascii: "T"), let value = try? TNetStringDecoder(limits: limits).decode([UInt8](frame.dropFirst())),
              case .bytes(let id)? = value["id"], value["type"] == nil, value["more"] == nil || value["more"] == .bool(false),
              case .integer(let code)? = value["code"], (100...599).contains(code) else { return nil }
        var reason = ""
        if case .bytes(let bytes)? = value["reason"] { reason = String(decoding: bytes, as: UTF8.self) }
        var headers = HTTPHeaders()
        if case .list(let pairs)? = value["headers"] {
            for pair in pairs {
                guard case .list(let parts) = pair, parts.count == 2, case .bytes(let name) = parts[0], case .bytes(let field) = parts[1] else { return nil }
                headers.append(String(decoding: name, as: UTF8.self), String(decoding: field, as: UTF8.self))
            }
        }
        var body: [UInt8] = []
        if case .bytes(let bytes)? = value["body"] { body = bytes }
        var from: [UInt8]?
        if case .bytes(let bytes)? = value["from"] { from = bytes }
        return ZhttpResponse(id: id, from: from, code: Int(code), reason: reason, headers: headers, body: body)
    }
}
