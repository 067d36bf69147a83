/// Unpadded base64url (RFC 4648 §5), as JOSE writes every segment and every key parameter.
///
/// Decoding is strict: only the URL-safe alphabet, no padding, no whitespace, and the unused low
/// bits of the last character must be zero, so each byte string has exactly one spelling (a
/// token that verifies is the token that was signed, not a sibling with a different last letter).
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The value of each ASCII byte in the alphabet, 0xFF for bytes outside it.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// `bytes` as unpadded base64url text.
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next(), third = iterator.next()
            let word = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            out.append(alphabet[Int(word >> 18 & 63)])
            out.append(alphabet[Int(word >> 12 & 63)])
            if second != nil { out.append(alphabet[Int(word >> 6 & 63)]) }
            if third != nil { out.append(alphabet[Int(word & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` spells, or nil when it is not canonical unpadded base64url.
    public static func decode<Text: Collection>(_ text: Text) -> [UInt8]? where Text.Element == UInt8 {
        // A single character left over carries 6 bits, less than a byte: no encoder writes that.
        guard text.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0, bits = 0
        for byte in text {
            let value = values[Int(byte)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Whatever is left are the padding bits of the last character: they must be zero.
        guard accumulator == 0 else { return nil }
        return out
    }

    /// `decode` for a String.
    public static func decode(_ text: String) -> [UInt8]? { decode(Array(text.utf8)) }
}
