/// One HTTP/1.x request head as the metrics listener reads it off a raw TCP connection: the
/// method and the path, or what to answer instead. Only what a scraper sends is understood
/// (`GET /metrics HTTP/1.1` and its header fields, which are skipped); bodies are not read.
public enum MetricsHTTPRequest: Sendable, Equatable {
    /// The head is not complete yet: read more.
    case incomplete
    /// A complete head: its method and path (without the query).
    case request(method: String, path: String)
    /// Not a request this listener answers: the status to answer with before closing.
    case invalid(status: Int)

    /// The longest head read (a scraper's is a few hundred bytes); beyond it, 431.
    public static let maxHeadBytes = 8_192

    /// Reads `bytes`, everything received on the connection so far.
    public static func parse(_ bytes: [UInt8]) -> MetricsHTTPRequest {
        guard let end = headEnd(bytes) else {
            return bytes.count > maxHeadBytes ? .invalid(status: 431) : .incomplete
        }
        guard end <= maxHeadBytes else { return .invalid(status: 431) }
        let lineEnd = bytes[..<end].firstIndex(where: { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }) ?? end
        let parts = bytes[..<lineEnd].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].count <= 16, parts[0].allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }),
              parts[1].first == UInt8(ascii: "/"), parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
              parts[2].elementsEqual("HTTP/1.1".utf8) || parts[2].elementsEqual("HTTP/1.0".utf8) else {
            return .invalid(status: 400)
        }
        let target = parts[1]
        let path = target.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target
        return .request(method: String(decoding: parts[0], as: UTF8.self), path: String(decoding: path, as: UTF8.self))
    }

    /// The index of the blank line ending the head (`\r\n\r\n`, or `\n\n` from a lax client).
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { return index }
                if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\r"), bytes[index + 2] == UInt8(ascii: "\n") { return index }
            }
            index += 1
        }
        return nil
    }
}
