import Foundation
@_spi(Routes) import Messages

/// The differential rule every wire target checks: the service's route (the hand-written reader
/// first, Foundation when it has none or gives up), Foundation's route alone and the reader alone
/// must agree on every frame: the same value, or the same error code.
enum Agreement {
    /// Longer error messages mean an echo was not capped (issue 12 item 6).
    static let longestMessage = 1_000

    /// What one route made of a frame.
    enum Outcome<Value> {
        case value(Value)
        case refused(WireError)

        init(_ decode: () throws(WireError) -> Value) {
            do { self = .value(try decode()) } catch { self = .refused(error) }
        }
    }

    /// nil when the routes agree on `frame` decoded as `T`, else what differs.
    static func check<T: Decodable>(_ type: T.Type, _ frame: Data, malformed: ErrorCode, tooDeep: ErrorCode? = nil,
                                    same: (T, T) -> Bool) -> (outcome: Outcome<T>, problem: String?) {
        let name = "\(T.self)"
        let reader = Wire.readerRoute(T.self, from: frame)
        let foundation = Outcome { () throws(WireError) in try Wire.foundationRoute(T.self, from: frame, malformed: malformed) }
        let service = Outcome { () throws(WireError) in
            try Wire.decode(T.self, from: frame, maxBytes: .max, tooLarge: .tooLarge, malformed: malformed, tooDeep: tooDeep)
        }
        if let reader {
            guard case .value(let generic) = foundation else { return (service, "\(name): the reader read a frame Foundation's route refuses (\(foundation))") }
            guard same(reader, generic) else { return (service, "\(name): the reader read \(reader), Foundation's route \(generic)") }
        }
        switch (service, foundation) {
        case (.value(let a), .value(let b)):
            if !same(a, b) { return (service, "\(name): the service's route read \(a), Foundation's \(b)") }
        case (.refused(let a), .refused(let b)):
            // The head's route words a too-deep frame with the body's code; every other refusal is the same.
            let expected = tooDeep != nil && b.message.hasPrefix("the document nests") ? tooDeep! : b.code
            if a.code != expected { return (service, "\(name): the service's route refuses with \(a), Foundation's with \(b)") }
            if a.message.count > longestMessage { return (service, "\(name): a refusal of \(a.message.count) characters echoes too much: \(a.message.prefix(200))…") }
        default:
            return (service, "\(name): the service's route says \(service), Foundation's \(foundation)")
        }
        return (service, nil)
    }

    /// The same, and a value read must survive encoding and reading again unchanged, its encoding
    /// stable, and the hand-written writer (where there is one) must write JSONEncoder's bytes.
    static func checkRoundTrip<T: Codable>(_ type: T.Type, _ frame: Data, malformed: ErrorCode, same: (T, T) -> Bool) -> String? {
        let (outcome, problem) = check(T.self, frame, malformed: malformed, same: same)
        if let problem { return problem }
        guard case .value(let value) = outcome else { return nil }
        return roundTrip(value, malformed: malformed, same: same)
    }

    /// nil when `value` encodes to JSONEncoder's bytes and reads back as itself.
    static func roundTrip<T: Codable>(_ value: T, malformed: ErrorCode, same: (T, T) -> Bool) -> String? {
        let encoded = Wire.encode(value)
        if encoded != Wire.foundationEncoding(value) {
            return "\(T.self): the hand-written writer wrote \(text(encoded)), JSONEncoder \(text(Wire.foundationEncoding(value)))"
        }
        let again: T
        do {
            again = try Wire.decode(T.self, from: encoded, maxBytes: .max, tooLarge: .tooLarge, malformed: malformed)
        } catch {
            return "\(T.self): \(value) encodes as \(text(encoded)), which is refused: \(error)"
        }
        if !same(value, again) { return "\(T.self): \(value) encodes as \(text(encoded)), which reads back as \(again)" }
        if Wire.encode(again) != encoded { return "\(T.self): encoding is not stable: \(text(encoded)) then \(text(Wire.encode(again)))" }
        return nil
    }

    /// A compact sighting batch frame: refused only as malformed or of another format; read, it
    /// writes back to the same bytes, the bus reads its source, and its JSON reads the same. A
    /// frame that is not compact (a mutant that lost its first byte) is held to `checkEnvelope`.
    static func checkCompact(_ frame: Data) -> String? {
        guard CompactSightingBatch.isCompact(frame) else { return checkEnvelope(frame) }
        let outcome = Outcome { () throws(WireError) in try Wire.decodeEnvelope(frame, maxBytes: .max) }
        switch outcome {
        case .refused(let error):
            if error.code != .messageMalformed && error.code != .unsupportedVersion { return "a compact frame refused with \(error.code)" }
            return nil
        case .value(let envelope):
            let source = EnvelopeSource.read(frame)
            guard let again = CompactSightingBatch.encode(envelope) else { return "a compact frame read into \(envelope), which the writer will not write" }
            if again != frame { return "a compact frame of \(frame.count) bytes wrote back as \(again.count) other bytes" }
            if source != envelope.source { return "the bus read source \(String(describing: source)), the envelope says \(envelope.source)" }
            guard let json = try? Wire.decodeEnvelope(Wire.encode(envelope)) else { return "the JSON of a compact frame's envelope does not read" }
            if json != envelope { return "the JSON of a compact frame's envelope reads as \(json), not \(envelope)" }
            return nil
        }
    }

    /// An envelope also goes through `Wire`'s envelope entry points, whose writer for sightings is hand-written.
    static func checkEnvelope(_ frame: Data) -> String? {
        if CompactSightingBatch.isCompact(frame) { return checkCompact(frame) }
        let (outcome, problem) = check(Envelope.self, frame, malformed: .messageMalformed, same: ==)
        if let problem { return problem }
        let entry = Outcome { () throws(WireError) in try Wire.decodeEnvelope(frame, maxBytes: .max) }
        switch (outcome, entry) {
        case (.value(let a), .value(let b)): if a != b { return "Wire.decodeEnvelope read \(b), the generic entry \(a)" }
        case (.refused(let a), .refused(let b)): if a.code != b.code { return "Wire.decodeEnvelope refuses with \(b), the generic entry with \(a)" }
        default: return "Wire.decodeEnvelope says \(entry), the generic entry \(outcome)"
        }
        guard case .value(let envelope) = entry else { return nil }
        let written = Wire.encode(envelope)
        if written != Wire.foundationEncoding(envelope) {
            return "the envelope writer wrote \(text(written)), JSONEncoder \(text(Wire.foundationEncoding(envelope)))"
        }
        return roundTrip(envelope, malformed: .messageMalformed, same: ==)
    }

    /// A frame as text for a report: lossy, and cut.
    static func text(_ data: Data) -> String { Quoting.cut(String(decoding: data, as: UTF8.self), limit: 300) }
}
