#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Strings a reader uses, escapes replaced.
extension JSONScanner {
    /// A string. Escapes other than \" \\ \/ \n \t \r \b \f \uXXXX (surrogates only as a pair) give
    /// up, and so do control characters and bytes that are not UTF-8 (Foundation refuses them
    /// rather than repair them).
    mutating func string() -> String? {
        guard expect(UInt8(ascii: "\"")) else { return nil }
        let start = position
        var plain = true
        var ascii = true
        // Byte by byte: most strings read are short names, where word-at-a-time scanning loses.
        while true {
            guard position < bytes.count else { return nil }
            let b = bytes[position]
            if b == UInt8(ascii: "\"") {
                defer { position += 1 }
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
                if !plain { return Self.unescape(slice) }
                guard ascii else { return String(validating: slice, as: UTF8.self) }
                // ASCII is UTF-8 as it stands; only other text pays for validation. Up to 15
                // bytes a String holds them inline; a longer one is reused when it was just read.
                guard slice.count > 15 else { return String(decoding: slice, as: UTF8.self) }
                if let reused = Self.same(recentLong.0, slice) ?? Self.same(recentLong.1, slice) { return reused }
                let text = String(decoding: slice, as: UTF8.self)
                recentLong = (text, recentLong.0)
                return text
            }
            if b == UInt8(ascii: "\\") {
                plain = false
                position += 2
                continue
            }
            if b < 0x20 { return nil }
            ascii = ascii && b < 0x80
            position += 1
        }
    }

    /// `candidate` when its UTF-8 is exactly `bytes`.
    @inline(__always)
    private static func same(_ candidate: String?, _ bytes: UnsafeRawBufferPointer) -> String? {
        guard let candidate, candidate.utf8.count == bytes.count else { return nil }
        let equal = candidate.utf8.withContiguousStorageIfAvailable { stored in
            memcmp(stored.baseAddress!, bytes.baseAddress!, bytes.count) == 0
        }
        return equal == true ? candidate : nil
    }

    /// A string written plainly (printable ASCII, no escape), handed to `read` where it lies in
    /// the frame, no String made; nil when it is written otherwise, and the reader gives up
    /// (Foundation's route then reads it).
    mutating func plainString<T>(_ read: (UnsafeRawBufferPointer) -> T?) -> T? {
        guard expect(UInt8(ascii: "\"")) else { return nil }
        let start = position
        while position < bytes.count {
            let b = bytes[position]
            if b == UInt8(ascii: "\"") {
                position += 1
                return read(UnsafeRawBufferPointer(rebasing: bytes[start..<(position - 1)]))
            }
            guard b >= 0x20, b < 0x80, b != UInt8(ascii: "\\") else { return nil }
            position += 1
        }
        return nil
    }

    /// An RFC 3339 time written plainly, parsed in place.
    mutating func timestamp() -> Timestamp? {
        plainString { Timestamp(rfc3339UTF8: $0) }
    }

    /// The text of a string's content with its escapes replaced; nil when one is not valid.
    static func unescape(_ slice: UnsafeRawBufferPointer) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(slice.count)
        var i = 0
        while i < slice.count {
            let b = slice[i]
            guard b == UInt8(ascii: "\\") else {
                out.append(b)
                i += 1
                continue
            }
            guard i + 1 < slice.count else { return nil }
            switch slice[i + 1] {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u"):
                guard var code = hex4(slice, at: i + 2) else { return nil }
                var length = 6
                if (0xD800...0xDBFF).contains(code) {
                    // A character beyond the BMP is a high surrogate escape followed by a low one.
                    guard i + 12 <= slice.count, slice[i + 6] == UInt8(ascii: "\\"), slice[i + 7] == UInt8(ascii: "u"),
                          let low = hex4(slice, at: i + 8), (0xDC00...0xDFFF).contains(low)
                    else { return nil }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    length = 12
                }
                // A lone low surrogate is no scalar.
                guard let scalar = Unicode.Scalar(code) else { return nil }
                UTF8.encode(scalar) { out.append($0) }
                i += length
                continue
            default: return nil
            }
            i += 2
        }
        return String(validating: out, as: UTF8.self)
    }

    /// Four hexadecimal digits at `offset`, exactly (no sign, no shorter).
    private static func hex4(_ slice: UnsafeRawBufferPointer, at offset: Int) -> UInt32? {
        guard offset + 4 <= slice.count else { return nil }
        var value: UInt32 = 0
        for b in slice[offset..<(offset + 4)] {
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
