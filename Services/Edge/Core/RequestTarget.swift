import Messages

/// The path segments and query parameters of a request URI, percent-decoded. Pushpin hands the
/// absolute URI it received (`https://cafe.example/v1/menu?locale=en_US`); an origin-form
/// `/v1/menu?…` is read too. `+` in a query stays a plus (RFC 3986; Apple's URLComponents does
/// not encode it), and a parameter given twice is refused rather than one of them silently kept.
public struct RequestTarget: Sendable, Equatable {
    /// The decoded segments of the path: `/v1/orders/ord-1` is `["v1", "orders", "ord-1"]`.
    public var segments: [String]
    /// Query parameters in order, names unique.
    public var query: [(name: String, value: String)]

    /// More segments than any route has: 404 without reading them.
    public static let maxSegments = 16
    /// More than any route takes, with room: 422 beyond.
    public static let maxQueryParameters = 32
    /// The longest query value (the URI is bounded too).
    public static let maxQueryValueBytes = 1_024

    /// The same segments and parameters in the same order.
    public static func == (lhs: RequestTarget, rhs: RequestTarget) -> Bool {
        lhs.segments == rhs.segments && lhs.query.map { "\($0.name)=\($0.value)" } == rhs.query.map { "\($0.name)=\($0.value)" }
    }

    /// The path as segments joined again, for messages.
    public var path: String { "/" + segments.joined(separator: "/") }

    /// The value of query parameter `name`, or nil.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// Reads `uri`; a problem (`request.malformed`) when it is not an http(s) URI or origin-form path.
    public static func parse(_ uri: String) throws(Problem) -> RequestTarget {
        var rest = Substring(uri)
        for scheme in ["http://", "https://"] where rest.lowercased().hasPrefix(scheme) {
            rest = rest.dropFirst(scheme.count)
            guard let start = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { rest = "/"; break }
            rest = rest[start...]
            if rest.first == "?" { rest = "/" + rest }
        }
        guard rest.first == "/" else { throw Problem(.malformed, "the request target is not a path") }
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let pathPart: Substring, queryPart: Substring?
        if let mark = rest.firstIndex(of: "?") {
            pathPart = rest[..<mark]
            queryPart = rest[rest.index(after: mark)...]
        } else {
            pathPart = rest
            queryPart = nil
        }
        let rawSegments = pathPart.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard rawSegments.count <= maxSegments else { throw Problem(.httpNotFound, "no route has \(rawSegments.count) path segments") }
        var segments: [String] = []
        for raw in rawSegments {
            guard let segment = percentDecoded(raw) else {
                throw Problem(.malformed, "path segment \(Quoting.quoted(raw)) is not percent-encoded UTF-8")
            }
            segments.append(segment)
        }
        var query: [(name: String, value: String)] = []
        if let queryPart, !queryPart.isEmpty {
            let pairs = queryPart.split(separator: "&", omittingEmptySubsequences: true)
            guard pairs.count <= maxQueryParameters else {
                throw Problem(.invalidField, "\(pairs.count) query parameters; the limit is \(maxQueryParameters)")
            }
            for pair in pairs {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = percentDecoded(parts[0]), let value = percentDecoded(parts.count > 1 ? parts[1] : "") else {
                    throw Problem(.malformed, "query parameter \(Quoting.quoted(pair)) is not percent-encoded UTF-8")
                }
                guard value.utf8.count <= maxQueryValueBytes else {
                    throw Problem(.invalidField, "query parameter \(Quoting.quoted(name)) is longer than \(maxQueryValueBytes) bytes")
                }
                guard !query.contains(where: { $0.name == name }) else {
                    throw Problem(.invalidField, "query parameter \(Quoting.quoted(name)) is given more than once")
                }
                query.append((name: name, value: value))
            }
        }
        return RequestTarget(segments: segments, query: query)
    }

    /// `%XX` escapes decoded; nil for a broken escape, bytes that are not UTF-8, or a control character.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
