import Foundation

/// A wire type with a hand-written JSON reader, for what arrives at campus rate: a sighting
/// envelope, a request's head, the reports phones and gateways send. `Wire` takes this route for any
/// type that conforms. The reader returns nil for anything it does not fully expect (a member name
/// given twice, a null, a number written unusually, an unknown event type), and Foundation's decoder
/// then decides and words the error; so a reader can only be faster than the generic route, never
/// different. `Tests/SharedTests/CodecDifferentialTests.swift` holds every reader to that.
protocol FastJSONDecodable: Decodable {
    /// Frames longer than this go straight to Foundation (default: no limit).
    static var fastReadLimit: Int { get }
    /// Reads one value at the scanner's position, or gives up with nil.
    static func read(from scanner: inout JSONScanner) -> Self?
}

extension FastJSONDecodable {
    static var fastReadLimit: Int { .max }

    /// The whole frame as one value, by the hand-written reader; nil when it gives up.
    static func fastDecode(_ frame: Data) -> Self? {
        guard frame.count <= fastReadLimit else { return nil }
        return frame.withUnsafeBytes { raw -> Self? in
            var scanner = JSONScanner(raw)
            guard let value = read(from: &scanner), scanner.atEnd else { return nil }
            return value
        }
    }

    /// Fills an empty slot with a value read; false (give up) when the value did not read or the
    /// slot was already filled, because the member's name was given twice.
    static func fill<T>(_ slot: inout T?, _ value: T?) -> Bool {
        guard slot == nil, let value else { return false }
        slot = value
        return true
    }
}

/// A wire type with a hand-written JSON writer for its common case: the bytes are those JSONEncoder
/// writes with sorted keys (tests compare them), produced without it.
protocol FastJSONEncodable: Encodable {
    /// The JSON of this value, or nil to let JSONEncoder write it.
    func fastEncoded() -> Data?
}

extension Wire {
    /// The value by `T`'s hand-written reader, when `T` has one and it does not give up.
    static func fastDecode<T>(_ type: T.Type, from frame: Data) -> T? {
        guard let fast = T.self as? any FastJSONDecodable.Type else { return nil }
        // F is T itself, opened from the existential: the value needs no dynamic cast.
        func read<F: FastJSONDecodable>(_: F.Type) -> T? { F.fastDecode(frame).map { unsafeBitCast($0, to: T.self) } }
        return read(fast)
    }

    /// The bytes by `T`'s hand-written writer, when `T` has one and it takes this value.
    static func fastEncode<T>(_ value: T) -> Data? {
        guard let fast = T.self as? any FastJSONEncodable.Type else { return nil }
        func write<F: FastJSONEncodable>(_: F.Type) -> Data? { (value as? F)?.fastEncoded() }
        return write(fast)
    }
}
