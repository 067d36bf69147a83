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
        let bytes = Array(header.utf8)
        guard bytes.count <= Self.maxBytes else { return false }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let head = Self.base64url(parts[0]), let claims = Self.base64url(parts[1]),
              let signature = Self.base64url(parts[2]) else { return false }
        let expected = Self.hmacSHA256(key: key, message: Array(bytes[0..<(parts[0].count + 1 + parts[1].count)]))
        guard signature.count == expected.count, zip(signature, expected).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else { return false }
        guard let header = try? JSONSerialization.jsonObject(with: Data(head)) as? [String: Any], header["alg"] as? String == "HS256",
              let object = try? JSONSerialization.jsonObject(with: Data(claims)) as? [String: Any], object["iss"] as? String == "pushpin",
              let exp = object["exp"] as? Double, exp.isFinite else { return false }
        return Double(now.milliseconds) / 1_000 < exp
    }

    /// HMAC-SHA256 (RFC 2104).
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? SHA256.digest(Data(key)) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = SHA256.digest(Data(block.map { $0 ^ 0x36 } + message))
        return SHA256.digest(Data(block.map { $0 ^ 0x5c } + inner))
    }

    /// Unpadded base64url, or nil.
    static func base64url(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F }) else {
            return nil
        }
        var standard = String(decoding: text, as: UTF8.self).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}
