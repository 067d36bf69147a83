import CCrypto
import Foundation

/// The Standard Webhooks signature a receiver checks: `v1,` and the base64 HMAC-SHA256, under the
/// endpoint's shared secret, of `"<webhook-id>.<webhook-timestamp>.<body>"`. The id is the
/// notification's, so a retry carries the same one and the receiver can drop the duplicate.
public struct WebhookSignature: Sendable {
    let secret: [UInt8]

    /// The longest secret accepted: Standard Webhooks secrets are 24–64 bytes.
    public static let maxSecretBytes = 256

    /// A signer for `secret`: the raw bytes, or nil when empty or over `maxSecretBytes`.
    public init?(secret: [UInt8]) {
        guard !secret.isEmpty, secret.count <= Self.maxSecretBytes else { return nil }
        self.secret = secret
    }

    /// A signer for a secret written the Standard Webhooks way, `whsec_` and base64, or nil.
    public init?(encoded: String) {
        let text = encoded.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("whsec_"), let bytes = Data(base64Encoded: String(text.dropFirst(6))) else { return nil }
        self.init(secret: [UInt8](bytes))
    }

    /// The `webhook-signature` header's value for one delivery.
    public func header(id: String, timestamp: Int64, body: [UInt8]) -> String {
        "v1," + Data(Self.hmacSHA256(key: secret, message: Array("\(id).\(timestamp).".utf8) + body)).base64EncodedString()
    }

    /// HMAC-SHA256 from libcrypto.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                _ = HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count), messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                         messageBytes.count, &out, &length)
            }
        }
        return Array(out.prefix(Int(length)))
    }
}
