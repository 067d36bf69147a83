import Foundation

/// JSON encoding and strict decoding of everything on the wire.
public enum Wire {
    /// Frames above this size are refused before parsing (configurable per socket with `maxBytes`).
    public static let defaultMaxFrameBytes = 256 * 1024

    /// Encodes any wire value as compact JSON.
    public static func encode<T: Encodable>(_ value: T) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            // Our own types always encode; a failure here is a programming error, not input.
            preconditionFailure("encoding \(T.self) failed: \(error)")
        }
    }

    /// Decodes a pub/sub envelope, refusing oversize frames, unknown types and bad fields with a typed error.
    public static func decodeEnvelope(_ frame: Data, maxBytes: Int = defaultMaxFrameBytes) throws(WireError) -> Envelope {
        try decode(Envelope.self, from: frame, maxBytes: maxBytes, tooLarge: .messageTooLarge, malformed: .messageMalformed)
    }

    /// Decodes a request's `op` and `id` so the service can pick the body type.
    public static func decodeRequestHead(_ frame: Data, maxBytes: Int = defaultMaxFrameBytes) throws(WireError) -> RequestHead {
        try decode(RequestHead.self, from: frame, maxBytes: maxBytes, tooLarge: .tooLarge, malformed: .malformed)
    }

    /// Decodes a whole request with its typed body.
    public static func decodeRequest<Body: Codable & Sendable>(_ frame: Data, body: Body.Type, maxBytes: Int = defaultMaxFrameBytes) throws(WireError) -> Request<Body> {
        try decode(Request<Body>.self, from: frame, maxBytes: maxBytes, tooLarge: .tooLarge, malformed: .invalidField)
    }

    /// Decodes a reply to a request whose success body is `Body`.
    public static func decodeReply<Body: Codable & Sendable>(_ frame: Data, body: Body.Type) throws(WireError) -> Reply<Body> {
        try decode(Reply<Body>.self, from: frame, maxBytes: Int.max, tooLarge: .tooLarge, malformed: .messageMalformed)
    }

    /// Decodes any wire value, mapping every failure to a `WireError` whose message names the field.
    public static func decode<T: Decodable>(_ type: T.Type, from frame: Data, maxBytes: Int, tooLarge: ErrorCode, malformed: ErrorCode) throws(WireError) -> T {
        guard frame.count <= maxBytes else {
            throw WireError(tooLarge, "frame of \(frame.count) bytes exceeds the limit of \(maxBytes)")
        }
        do {
            return try JSONDecoder().decode(T.self, from: frame)
        } catch let error as WireError {
            throw error
        } catch let error as DecodingError {
            throw WireError(malformed, describe(error))
        } catch {
            throw WireError(malformed, "\(error)")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [CodingKey]) -> String {
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return text.isEmpty ? "the document" : text.replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing field \(path(context.codingPath + [key]))"
        case .typeMismatch(let type, let context):
            return "field \(path(context.codingPath)) must be \(describe(type))"
        case .valueNotFound(let type, let context):
            return "field \(path(context.codingPath)) must be \(describe(type)), not null"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "not a JSON object: \(context.debugDescription)" }
            return "field \(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is UInt64.Type, is Int32.Type: "an integer"
        case is Double.Type: "a number"
        default: "\(type)"
        }
    }
}
