import Foundation

/// JSON encoding and strict decoding of everything on the wire.
///
/// Types with a hand-written reader or writer (`FastJSONDecodable`, `FastJSONEncodable`) take it
/// first; Foundation's coders do the rest and word every error. On every route a member name given
/// twice in one object is refused: Foundation alone would keep the first without a word.
public enum Wire {
    /// Frames above this size are refused before parsing (configurable per socket with `maxBytes`).
    public static let defaultMaxFrameBytes = 256 * 1024

    /// Encodes any wire value as compact JSON with sorted keys, so the same value always gives
    /// the same bytes and operators tailing a topic read fields in a stable order.
    public static func encode<T: Encodable>(_ value: T) -> Data {
        fastEncode(value) ?? encodeGeneric(value)
    }

    /// Encodes an envelope; sightings, the hot path, take their hand-written route to the same JSON.
    public static func encode(_ envelope: Envelope) -> Data {
        envelope.fastEncoded() ?? encodeGeneric(envelope)
    }

    /// `encode`, also the range of the frame that is the body's value (the frame starts with it,
    /// keys sorted) when the envelope took the hand-written route; nil when JSONEncoder wrote it.
    public static func encodeMarkingBody(_ envelope: Envelope) -> (frame: Data, body: Range<Int>?) {
        if let (frame, end) = envelope.fastEncodedMarkingBody() { return (frame, bodyKeyBytes..<end) }
        return (encodeGeneric(envelope), nil)
    }

    /// The length of `{"body":`, where an encoded envelope's body begins.
    static let bodyKeyBytes = 8

    static func encodeGeneric(_ value: any Encodable) -> Data {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return try encoder.encode(value)
        } catch {
            // Our own types always encode; a failure here is a programming error, not input.
            preconditionFailure("encoding \(type(of: value)) failed: \(error)")
        }
    }

    /// Decodes a pub/sub envelope, refusing oversize frames, unknown types and bad fields with a typed error.
    /// A compact `sighting.batch` frame (`CompactSightingBatch`) reads into the envelope its JSON would.
    public static func decodeEnvelope(_ frame: Data, maxBytes: Int = defaultMaxFrameBytes) throws(WireError) -> Envelope {
        if CompactSightingBatch.isCompact(frame) {
            try refuseOversize(frame, maxBytes: maxBytes, .messageTooLarge)
            return try CompactSightingBatch.decode(frame)
        }
        return try decode(Envelope.self, from: frame, maxBytes: maxBytes, tooLarge: .messageTooLarge, malformed: .messageMalformed)
    }

    /// Decodes a request's `op` and `id` so the service can pick the body type. A frame nested too
    /// deep is refused here already, with the code its body would get (`request.invalidField`).
    public static func decodeRequestHead(_ frame: Data, maxBytes: Int = defaultMaxFrameBytes) throws(WireError) -> RequestHead {
        try decode(RequestHead.self, from: frame, maxBytes: maxBytes, tooLarge: .tooLarge, malformed: .malformed, tooDeep: .invalidField)
    }

    /// The op a request names as its first or last member, read from the frame's head or tail
    /// without parsing the rest: `{"op":"ingest.batch",…}` as a hand-written client puts it, or
    /// `…,"op":"ingest.batch"}` as sorted keys put it. A hint for `decodeRequestInOnePass`, never
    /// trusted on its own. Nil when neither end is so, or the op is not 1–64 bytes of printable
    /// ASCII without quotes or backslashes.
    public static func namedOp(_ frame: Data) -> String? {
        frame.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> String? in
            let bytes = raw.bindMemory(to: UInt8.self)
            return leadingOp(bytes) ?? trailingOp(bytes)
        }
    }

    /// The bytes of an op: printable ASCII but `"` and `\`.
    @inline(__always)
    private static func isOpByte(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    /// `"op":"` at `m`.
    @inline(__always)
    private static func opKey(_ bytes: UnsafeBufferPointer<UInt8>, at m: Int) -> Bool {
        bytes[m] == UInt8(ascii: "\"") && bytes[m + 1] == UInt8(ascii: "o") && bytes[m + 2] == UInt8(ascii: "p")
            && bytes[m + 3] == UInt8(ascii: "\"") && bytes[m + 4] == UInt8(ascii: ":") && bytes[m + 5] == UInt8(ascii: "\"")
    }

    /// `{"op":"X",` or `{"op":"X"}`.
    private static func leadingOp(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.count >= 10, bytes[0] == UInt8(ascii: "{"), opKey(bytes, at: 1) else { return nil }
        var end = 7
        while end < bytes.count, end - 7 <= 64, isOpByte(bytes[end]) { end += 1 }
        guard end > 7, end - 7 <= 64, end + 1 < bytes.count, bytes[end] == UInt8(ascii: "\""),
              bytes[end + 1] == UInt8(ascii: ",") || bytes[end + 1] == UInt8(ascii: "}") else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[7..<end]), as: UTF8.self)
    }

    /// `,"op":"X"}` or `{"op":"X"}`.
    private static func trailingOp(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let end = bytes.count - 2
        guard end >= 7, bytes[end + 1] == UInt8(ascii: "}"), bytes[end] == UInt8(ascii: "\"") else { return nil }
        var start = end
        while start > 0, end - start <= 64, isOpByte(bytes[start - 1]) { start -= 1 }
        let m = start - 6
        guard start < end, end - start <= 64, m >= 1, opKey(bytes, at: m),
              bytes[m - 1] == UInt8(ascii: ",") || bytes[m - 1] == UInt8(ascii: "{") else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// Whether `Body` has a hand-written reader, so `decodeRequestInOnePass` can read it.
    public static func readsInOnePass<Body>(_ body: Body.Type) -> Bool {
        Body.self is any FastJSONDecodable.Type
    }

    /// A whole request, head and body, in one pass of its body's hand-written reader, when the
    /// frame is within `maxBytes` and the reader takes it; nil otherwise, and the caller reads the
    /// head and then the request as before (which word every refusal). A request read here is one
    /// the two passes would have read the same: the reader is as strict as Foundation's route.
    public static func decodeRequestInOnePass<Body: Codable & Sendable>(_ frame: Data, body: Body.Type, maxBytes: Int) -> Request<Body>? {
        guard frame.count <= maxBytes else { return nil }
        return fastDecode(Request<Body>.self, from: frame)
    }

    /// Decodes a whole request with its typed body.
    public static func decodeRequest<Body: Codable & Sendable>(_ frame: Data, body: Body.Type, maxBytes: Int = defaultMaxFrameBytes) throws(WireError) -> Request<Body> {
        try decode(Request<Body>.self, from: frame, maxBytes: maxBytes, tooLarge: .tooLarge, malformed: .invalidField)
    }

    /// A value a service wrote itself and stored (an order's snapshot in its row): its
    /// hand-written reader when it has one, else Foundation's decoder, whose error is thrown.
    public static func decodeStored<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if let value = fastDecode(T.self, from: data) { return value }
        return try JSONDecoder().decode(T.self, from: data)
    }

    /// Decodes a reply to a request whose success body is `Body`.
    public static func decodeReply<Body: Codable & Sendable>(_ frame: Data, body: Body.Type) throws(WireError) -> Reply<Body> {
        try decode(Reply<Body>.self, from: frame, maxBytes: Int.max, tooLarge: .tooLarge, malformed: .messageMalformed)
    }

    /// Decodes any wire value, mapping every failure to a `WireError` whose message names the field:
    /// the type's hand-written reader when it has one, Foundation when it has none or gives up.
    /// A frame nested deeper than `maxNestingDepth` is refused with `tooDeep` (default: `malformed`).
    public static func decode<T: Decodable>(_ type: T.Type, from frame: Data, maxBytes: Int, tooLarge: ErrorCode, malformed: ErrorCode,
                                            tooDeep: ErrorCode? = nil) throws(WireError) -> T {
        try refuseOversize(frame, maxBytes: maxBytes, tooLarge)
        if let value = fastDecode(T.self, from: frame) { return value }
        return try decodeGeneric(T.self, from: frame, malformed: malformed, tooDeep: tooDeep)
    }

    /// The same for a type known here to have a reader, which it tries without looking up the
    /// conformance at run time (a sighting envelope's decode is a few microseconds; the lookup is not free).
    static func decode<T: FastJSONDecodable>(_ type: T.Type, from frame: Data, maxBytes: Int, tooLarge: ErrorCode, malformed: ErrorCode,
                                             tooDeep: ErrorCode? = nil) throws(WireError) -> T {
        try refuseOversize(frame, maxBytes: maxBytes, tooLarge)
        if let value = T.fastDecode(frame) { return value }
        return try decodeGeneric(T.self, from: frame, malformed: malformed, tooDeep: tooDeep)
    }

    /// Refuses a frame over `maxBytes` with `code`, before anything reads it.
    static func refuseOversize(_ frame: Data, maxBytes: Int, _ code: ErrorCode) throws(WireError) {
        guard frame.count <= maxBytes else { throw WireError(code, "frame of \(frame.count) bytes exceeds the limit of \(maxBytes)") }
    }

    /// Foundation's route. Two checks Foundation lacks come first: the nesting depth, before
    /// anything here or in Foundation recurses (the hand-written readers give up past the same
    /// depth, so both routes refuse the same frames), and repeated names, so a repeated name is
    /// refused whatever else the frame holds, as the hand-written readers refuse it.
    static func decodeGeneric<T: Decodable>(_ type: T.Type, from frame: Data, malformed: ErrorCode, tooDeep: ErrorCode? = nil) throws(WireError) -> T {
        if nestsTooDeep(frame) { throw nestingError(tooDeep ?? malformed) }
        if let member = JSONScanner.repeatedMember(in: frame) {
            throw WireError(malformed, "field \(Quoting.cut(member, limit: pathLimit)) is given more than once")
        }
        do {
            return try JSONDecoder().decode(T.self, from: frame)
        } catch let error as WireError {
            throw error
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty, let field = UnfitNumberLocator.field(T.self, in: frame) {
                throw WireError(malformed, "field \(field) must be a number of its type (a whole number for an integer, not negative for an unsigned one, in range)")
            }
            throw WireError(malformed, describe(error))
        } catch {
            throw WireError(malformed, Quoting.cut("\(error)", limit: detailLimit))
        }
    }

    /// How much of a coding path a message quotes: object keys in it may be a client's own (a
    /// map's keys, a repeated unknown name), and a message never echoes 200 KB.
    static let pathLimit = 128
    /// How much of Foundation's own wording a message quotes: it may hold a value as sent
    /// ("Cannot initialize Proximity from invalid String value …").
    static let detailLimit = 200

    /// A coding path as messages write it: `body.order.lines[0].quantity`.
    static func path(_ keys: [any CodingKey]) -> String {
        let text = keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return text.isEmpty ? "the document" : Quoting.cut(text.replacingOccurrences(of: ".[", with: "["), limit: pathLimit)
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "missing field \(path(context.codingPath + [key]))"
        case .typeMismatch(let type, let context):
            return "field \(path(context.codingPath)) must be \(describe(type))"
        case .valueNotFound(let type, let context):
            return "field \(path(context.codingPath)) must be \(describe(type)), not null"
        case .dataCorrupted(let context):
            let detail = Quoting.cut(context.debugDescription, limit: detailLimit)
            if context.codingPath.isEmpty { return "not a JSON object: \(detail)" }
            return "field \(path(context.codingPath)): \(detail)"
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
