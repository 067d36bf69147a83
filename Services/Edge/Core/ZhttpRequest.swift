import Foundation
import Messages

/// One HTTP request as Pushpin hands it to a `zhttpreq` route: ZeroMQ RFC 33's basic
/// arrangement, one message each way. Pushpin's DEALER sends `[empty, "T" + tnetstring]`; the
/// edge answers on a ROUTER with the routing frames it received and one `ZhttpResponse`, so any
/// number of requests are in flight at once (a REP socket would hold one) and answers may go back
/// in any order: each carries its request's `id`.
///
/// Read: `id` (a string; echoed), `from` (Pushpin's instance, for logs), `method`, `uri` (the
/// absolute URI Pushpin received, `http://host/path?query`), `headers` (`[name, value]` pairs),
/// `body`, and `peer-address` when present. A request packet has no `type` and no `more`: Pushpin
/// sends the whole body in one packet in req mode. The stream arrangement's `seq`, `credits`,
/// `stream`, keep-alives and handoffs are not used (held responses are GRIP's, not zmq-http's), and
/// `max-size`, `user-data`, `ext` and the proxy's own members are ignored.
public struct ZhttpRequest: Sendable, Equatable {
    public var id: [UInt8]
    public var from: [UInt8]?
    public var method: String
    public var uri: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var peerAddress: String?

    /// A request as given (tests, seeds, a fake Pushpin).
    public init(id: [UInt8], from: [UInt8]? = nil, method: String, uri: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], peerAddress: String? = nil) {
        self.id = id
        self.from = from
        self.method = method
        self.uri = uri
        self.headers = headers
        self.body = body
        self.peerAddress = peerAddress
    }

    /// The request a frame holds, or why not: `.answered` when its id could be read (the edge
    /// answers the problem), `.unanswerable` when not (the edge drops it and counts it).
    public static func decode(_ frame: Data, limits: ZhttpLimits = .standard) throws(ZhttpRefusal) -> ZhttpRequest {
        guard frame.first == UInt8(ascii: "T") else {
            throw .unanswerable(code: "zhttp.malformed", message: "a zmq-http message starts with T (tnetstring)")
        }
        let value: TNetString
        do {
            value = try TNetStringDecoder(limits: limits.tnetstring).decode([UInt8](frame.dropFirst()))
        } catch {
            throw .unanswerable(code: error.code.rawValue, message: error.description)
        }
        guard case .dictionary = value else {
            throw .unanswerable(code: "zhttp.malformed", message: "a zmq-http packet is a dictionary, not a \(value.kind)")
        }
        guard case .bytes(let id)? = value["id"], !id.isEmpty, id.count <= limits.maxIdBytes else {
            throw .unanswerable(code: "zhttp.malformed", message: "a request names one id of 1–\(limits.maxIdBytes) bytes")
        }
        if let type = value["type"] {
            throw .unanswerable(code: "zhttp.unsupportedType", message: "a \(Self.text(type) ?? type.kind) packet; req mode sends requests only")
        }
        var from: [UInt8]?
        if case .bytes(let bytes)? = value["from"] { from = bytes }
        func refuse(_ code: ErrorCode, _ message: String) -> ZhttpRefusal {
            .answered(requestId: id, from: from, problem: Problem(code, message))
        }
        if let more = value["more"], more != .bool(false) {
            throw refuse(.malformed, "a request arrives whole in req mode (more is set)")
        }
        guard case .bytes(let methodBytes)? = value["method"], (1...limits.maxMethodBytes).contains(methodBytes.count),
              methodBytes.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            throw refuse(.malformed, "a request has a method of 1–\(limits.maxMethodBytes) capital letters")
        }
        guard case .bytes(let uriBytes)? = value["uri"] else { throw refuse(.malformed, "a request has a uri") }
        guard uriBytes.count <= limits.maxURIBytes else {
            throw refuse(.httpURITooLong, "the URI is \(uriBytes.count) bytes; the limit is \(limits.maxURIBytes)")
        }
        guard uriBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw refuse(.malformed, "a URI is printable ASCII without spaces (percent-encode the rest)")
        }
        let headers = try Self.headers(value["headers"], limits: limits, refuse: refuse)
        var body: [UInt8] = []
        switch value["body"] {
        case nil: break
        case .bytes(let bytes)?:
            guard bytes.count <= limits.maxBodyBytes else {
                throw refuse(.tooLarge, "the body is \(bytes.count) bytes; the limit is \(limits.maxBodyBytes)")
            }
            body = bytes
        case let other?: throw refuse(.malformed, "body is a string, not a \(other.kind)")
        }
        var peer: String?
        if case .bytes(let bytes)? = value["peer-address"], bytes.count <= 64 { peer = String(decoding: bytes, as: UTF8.self) }
        return ZhttpRequest(id: id, from: from, method: String(decoding: methodBytes, as: UTF8.self), uri: String(decoding: uriBytes, as: UTF8.self),
                            headers: headers, body: body, peerAddress: peer)
    }

    /// `[[name, value], …]`, each name a token, held to the count and size limits.
    static func headers(_ value: TNetString?, limits: ZhttpLimits, refuse: (ErrorCode, String) -> ZhttpRefusal) throws(ZhttpRefusal) -> HTTPHeaders {
        guard let value else { return HTTPHeaders() }
        guard case .list(let pairs) = value else { throw refuse(.malformed, "headers is a list of [name, value] pairs") }
        guard pairs.count <= limits.maxHeaderCount else {
            throw refuse(.httpHeadersTooLarge, "\(pairs.count) header fields; the limit is \(limits.maxHeaderCount)")
        }
        var headers = HTTPHeaders()
        var total = 0
        for pair in pairs {
            guard case .list(let parts) = pair, parts.count == 2, case .bytes(let name) = parts[0], case .bytes(let value) = parts[1] else {
                throw refuse(.malformed, "headers is a list of [name, value] pairs")
            }
            guard !name.isEmpty, name.allSatisfy(Self.isTokenByte) else { throw refuse(.malformed, "a header name is a token") }
            guard name.count <= limits.maxHeaderNameBytes, value.count <= limits.maxHeaderValueBytes else {
                throw refuse(.httpHeadersTooLarge, "a header field of \(name.count + value.count) bytes; names hold \(limits.maxHeaderNameBytes), values \(limits.maxHeaderValueBytes)")
            }
            total += name.count + value.count
            guard total <= limits.maxHeaderBytes else {
                throw refuse(.httpHeadersTooLarge, "the header fields pass \(limits.maxHeaderBytes) bytes")
            }
            headers.append(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        }
        return headers
    }

    /// RFC 9110's tchar.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }

    static func text(_ value: TNetString) -> String? {
        guard case .bytes(let bytes) = value, bytes.count <= 64 else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// This request as Pushpin would send it (for tests, the fuzz seeds and a fake Pushpin).
    public var frame: Data {
        var members: [(key: String, value: TNetString)] = []
        if let from { members.append((key: "from", value: .bytes(from))) }
        members.append((key: "id", value: .bytes(id)))
        members.append((key: "method", value: .text(method)))
        members.append((key: "uri", value: .text(uri)))
        members.append((key: "headers", value: .list(headers.fields.map { .list([.text($0.name), .text($0.value)]) })))
        members.append((key: "body", value: .bytes(body)))
        if let peerAddress { members.append((key: "peer-address", value: .text(peerAddress))) }
        return Data([UInt8(ascii: "T")] + TNetString.dictionary(members).encoded())
    }
}

/// Why a zmq-http message was not taken as a request.
public enum ZhttpRefusal: Error, Sendable, Equatable {
    /// No id could be read, or it is not a request packet: nothing can be answered. The edge drops
    /// it and counts it; Pushpin times the client's request out.
    case unanswerable(code: String, message: String)
    /// A request the edge answers with `problem` (a URI too long, too many headers, a body over the limit).
    case answered(requestId: [UInt8], from: [UInt8]?, problem: Problem)
}
