import Foundation
import Messages
import ServiceRuntime

/// Pushpin's `Grip-Sig`: a JWT it adds to every request it forwards, HS256 under its `sig_key`,
/// with `iss` "pushpin" and an `exp` a minute or so ahead. With the key (`--grip-key-file`) the
/// edge answers only requests that carry a valid one, so a process that reached the zhttp
/// endpoint without Pushpin (another binder of a shared port, a misrouted proxy) is refused.
public struct GripSignature: Sendable {
    let key: [UInt8]

    /// The longest header read: Pushpin's is about 130 bytes.
    public static let maxBytes = 1_024

    /// A checker for `key` (the bytes of Pushpin's `sig_key`).
    public init(key: [UInt8]) {
        self.key = key
    }

    /// Whether `header` is a JWT Pushpin signed with this key, issued by "pushpin" and not
    /// expired at `now`. Any other shape is false, never a trap.
    public func verifies(_ header: String, now: Timestamp) -> Bool {
        expiry(of: header).map { Double(now.milliseconds) / 1_000 < $0 } ?? false
    }

    /// The `exp` of a header this key signed, issued by "pushpin"; nil for any other.
    public func expiry(of header: String) -> Double? {
        let bytes = Array(header.utf8)
        guard bytes.count <= Self.maxBytes else { return nil }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let head = Self.base64url(parts[0]), let claims = Self.base64url(parts[1]),
              let signature = Self.base64url(parts[2]) else { return nil }
        let expected = Self.hmacSHA256(key: key, message: Array(bytes[0..<(parts[0].count + 1 + parts[1].count)]))
        guard signature.count == expected.count, zip(signature, expected).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else { return nil }
        guard let header = try? JSONSerialization.jsonObject(with: Data(head)) as? [String: Any], header["alg"] as? String == "HS256",
              let object = try? JSONSerialization.jsonObject(with: Data(claims)) as? [String: Any], object["iss"] as? String == "pushpin",
              let exp = object["exp"] as? Double, exp.isFinite else { return nil }
        return exp
    }

    /// HMAC-SHA256 (RFC 2104).
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? SHA256.digest(Data(key)) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = SHA256.digest(Data(block.map { $0 ^ 0x36 } + message))
        return SHA256.digest(Data(block.map { $0 ^ 0x5c } + inner))
    }

    /// Unpadded base64url, or nil (decoded directly: through Foundation's base64 with two string
    /// replacements it was a twelfth of the edge's CPU).
    static func base64url(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var buffer: UInt32 = 0, bits = 0
        for byte in text {
            let value: UInt32
            switch byte {
            case 0x41...0x5A: value = UInt32(byte - 0x41)
            case 0x61...0x7A: value = UInt32(byte - 0x61) + 26
            case 0x30...0x39: value = UInt32(byte - 0x30) + 52
            case 0x2D: value = 62
            case 0x5F: value = 63
            default: return nil
            }
            buffer = buffer << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero, as a canonical encoder writes them.
        guard buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }
}

/// The last Grip-Sig that verified and its expiry: Pushpin signs every request of a second with
/// the same token, so checking it once per token spares the HMAC and two JSON parses on nearly
/// every request. On the edge's reactor thread only.
final class GripSignatureCache {
    let signature: GripSignature
    private var last: (header: String, exp: Double)?

    init(_ signature: GripSignature) {
        self.signature = signature
    }

    func verifies(_ header: String, now: Timestamp) -> Bool {
        let seconds = Double(now.milliseconds) / 1_000
        if let last, last.header == header { return seconds < last.exp }
        guard let exp = signature.expiry(of: header) else { return false }
        last = (header, exp)
        return seconds < exp
    }
}
