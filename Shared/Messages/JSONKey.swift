import Foundation

/// A member name as `JSONScanner` found it. Readers match it against the names they know
/// (`case "deviceId":`) by its bytes, without building a string for every member of every frame.
struct JSONKey {
    /// The name's bytes in the frame, when written plainly (printable ASCII, no escape).
    let plain: UnsafeRawBufferPointer?
    /// The name's text, when written otherwise (escapes replaced).
    private let decoded: String?

    init(plain bytes: UnsafeRawBufferPointer) {
        plain = bytes
        decoded = nil
    }

    init(decoded text: String) {
        plain = nil
        decoded = text
    }

    /// The name as text, for the rare member a reader skips.
    var text: String {
        if let plain { return String(decoding: plain, as: UTF8.self) }
        return decoded ?? ""
    }

    /// Whether the key is `name`: byte for byte when plain, else by text (a name written with
    /// escapes, as `"\u0064eviceId"`, is still `deviceId`).
    @inline(__always)
    static func ~= (name: StaticString, key: JSONKey) -> Bool {
        guard let plain = key.plain else { return key.decoded == name.description }
        // Inlined into each `case`, the length is a constant: most cases end at this comparison.
        guard plain.count == name.utf8CodeUnitCount else { return false }
        return memcmp(plain.baseAddress!, name.utf8Start, plain.count) == 0
    }
}
