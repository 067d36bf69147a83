import Foundation

/// JSON encoding and strict decoding of everything on the wire.
public enum Wire {
    /// Frames above this size are refused before parsing (configurable per socket with `maxBytes`).
    public static let defaultMaxFrameBytes = 256 * 1024

    /// Encodes any wire value as compact JSON with sorted keys, so the same value always gives
    /// the same bytes and operators tailing a topic read fields in a stable order.
    public static func encode<T: Encodable>(_ value: T) -> Data {
        if let reply = value as? Reply<IngestBatchResult>, let data = RequestCodec.encode(reply) { return data }
        return encode(value as any Encodable)
    }

    private static func encode(_ value: any Encodable) -> Data {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return try encoder.encode(value)
        } catch {
            // Our own types always encode; a failure here is a programming error, not input.
            preconditionFailure("encoding \(type(of: value)) failed: \(error)")
        }
    }

    /// Encodes an envelope; sightings, the hot path, take a hand-written route to the same JSON.
    public static func encode(_ envelope: Envelope) -> Data {
        if case .sighting(let sighting) = envelope.body, let data = SightingCodec.encode(envelope, sighting) { return data }
        return encode(envelope as any Encodable)
    }

    /// Decodes a pub/sub envelope, refusing oversize frames, unknown types and bad fields with a typed error.
    public static func decodeEnvelope(_ frame: Data, maxBytes: Int = defaultMaxFrameBytes) throws(WireError) -> Envelope {
        // Sightings first take the hand-written route; anything it does not fully recognise goes
        // through the generic decoder, which gives the typed error.
        if frame.count <= min(2048, maxBytes), let envelope = SightingCodec.decode(frame) { return envelope }
        return try decode(Envelope.self, from: frame, maxBytes: maxBytes, tooLarge: .messageTooLarge, malformed: .messageMalformed)
    }

    /// Decodes a request's `op` and `id` so the service can pick the body type.
    public static func decodeRequestHead(_ frame: Data, maxBytes: Int = defaultMaxFrameBytes) throws(WireError) -> RequestHead {
        if frame.count <= maxBytes, let head = RequestCodec.head(frame) { return head }
        return try decode(RequestHead.self, from: frame, maxBytes: maxBytes, tooLarge: .tooLarge, malformed: .malformed)
    }

    /// Decodes a whole request with its typed body.
    public static func decodeRequest<Body: Codable & Sendable>(_ frame: Data, body: Body.Type, maxBytes: Int = defaultMaxFrameBytes) throws(WireError) -> Request<Body> {
        // Gateway batches arrive at campus rate: a hand-written route, the generic one on any surprise.
        if Body.self == IngestBatch.self, frame.count <= maxBytes, let batch = RequestCodec.ingestBatch(frame) as? Request<Body> { return batch }
        return try decode(Request<Body>.self, from: frame, maxBytes: maxBytes, tooLarge: .tooLarge, malformed: .invalidField)
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
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty, let field = unfitNumberField(T.self, in: frame) {
                throw WireError(malformed, "field \(field) must be a number of its type (a whole number for an integer, not negative for an unsigned one, in range)")
            }
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

// MARK: - Numbers that do not fit their field

extension Wire {
    private enum PathElement {
        case key(String)
        case index(Int)
    }

    /// Foundation's JSONDecoder reports a number that does not fit its field (1.5 or -1 for an
    /// unsigned integer, 1e30 for an Int) as "The given data was not valid JSON" with no coding
    /// path. When the frame is valid JSON, this finds the field: with every other number made to
    /// fit any integer field (whole, not negative, within Int32), the culprit alone still fails that
    /// way. Bounded work, as it runs on untrusted input.
    static func unfitNumberField<T: Decodable>(_ type: T.Type, in frame: Data) -> String? {
        guard let root = try? JSONSerialization.jsonObject(with: frame, options: [.fragmentsAllowed]) else { return nil }
        var leaves: [[PathElement]] = []
        collectNumbers(root, at: [], into: &leaves)
        guard !leaves.isEmpty, leaves.count * max(frame.count, 1) <= 4 << 20 else { return nil }
        var fitted = root
        for leaf in leaves {
            let number = (value(at: leaf, in: root) as? NSNumber)?.doubleValue ?? 0
            fitted = replacing(leaf, in: fitted, with: Int(min(abs(number.rounded(.towardZero)), Double(Int32.max))))
        }
        for leaf in leaves {
            let probe = replacing(leaf, in: fitted, with: value(at: leaf, in: root))
            guard let data = try? JSONSerialization.data(withJSONObject: probe, options: [.fragmentsAllowed]) else { continue }
            do {
                _ = try JSONDecoder().decode(T.self, from: data)
            } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
                return leaf.enumerated().map { offset, element in
                    switch element {
                    case .key(let key): offset == 0 ? key : ".\(key)"
                    case .index(let index): "[\(index)]"
                    }
                }.joined()
            } catch {}
        }
        return nil
    }

    private static func collectNumbers(_ value: Any, at path: [PathElement], into leaves: inout [[PathElement]]) {
        switch value {
        case let object as [String: Any]:
            for key in object.keys.sorted() { collectNumbers(object[key]!, at: path + [.key(key)], into: &leaves) }
        case let array as [Any]:
            for (index, element) in array.enumerated() { collectNumbers(element, at: path + [.index(index)], into: &leaves) }
        case let number as NSNumber:
            // JSON true/false also arrive as NSNumber, with the objCType of a C char.
            if number.objCType.pointee != CChar(UInt8(ascii: "c")) { leaves.append(path) }
        default:
            break
        }
    }

    private static func value(at path: [PathElement], in root: Any) -> Any {
        guard let head = path.first else { return root }
        switch head {
        case .key(let key): return value(at: Array(path.dropFirst()), in: (root as! [String: Any])[key]!)
        case .index(let index): return value(at: Array(path.dropFirst()), in: (root as! [Any])[index])
        }
    }

    private static func replacing(_ path: [PathElement], in root: Any, with newValue: Any) -> Any {
        guard let head = path.first else { return newValue }
        switch head {
        case .key(let key):
            var object = root as! [String: Any]
            object[key] = replacing(Array(path.dropFirst()), in: object[key]!, with: newValue)
            return object
        case .index(let index):
            var array = root as! [Any]
            array[index] = replacing(Array(path.dropFirst()), in: array[index], with: newValue)
            return array
        }
    }
}
