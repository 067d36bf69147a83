import CCrypto

/// The few libcrypto calls every identity type shares, wrapped once where the C call is made.
enum OpenSSL {
    /// The reason OpenSSL queued for its last failure on this thread (the queue is then cleared).
    static func lastError() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        cafe_openssl_last_error(&buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "no reason given" : text
    }

    /// A `crypto.failure` naming the call and OpenSSL's reason.
    static func failure(_ call: String) -> IdentityError {
        IdentityError(.crypto, "\(call) failed: \(lastError())")
    }

    /// SHA-256 of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { raw in
            EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_sha256(), nil)
        }
        // EVP_Digest over memory with the default provider's SHA-256 cannot fail but for lack of memory.
        precondition(ok == 1 && length == 32, "EVP_Digest(SHA-256) failed: \(lastError())")
        return digest
    }

    /// `count` bytes from OpenSSL's CSPRNG, which the OS seeds (getrandom) and reseeds.
    static func randomBytes(_ count: Int) throws(IdentityError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { throw failure("RAND_bytes") }
        return bytes
    }
}

