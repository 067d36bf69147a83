import CCrypto

/// The two encodings of one ECDSA P-256 signature: JOSE's raw r‖s (RFC 7518 §3.4: each 32
/// bytes, big-endian, left-padded) and the DER `ECDSA-Sig-Value` SEQUENCE OpenSSL reads and
/// writes. A JWS carrying DER, or r‖s of any other length, is not an ES256 signature.
enum ECDSASignature {
    /// Bytes of r and of s on P-256.
    static let scalarBytes = 32

    /// DER for a raw 64-byte r‖s, or nil when `raw` is not 64 bytes.
    static func der(fromRaw raw: [UInt8]) throws(IdentityError) -> [UInt8]? {
        guard raw.count == 2 * scalarBytes else { return nil }
        guard let signature = ECDSA_SIG_new() else { throw OpenSSL.failure("ECDSA_SIG_new") }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(scalarBytes), nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + scalarBytes, Int32(scalarBytes), nil) }
        guard let r, let s else {
            BN_free(r)
            BN_free(s)
            throw OpenSSL.failure("BN_bin2bn")
        }
        // set0 takes ownership of r and s: freed with the signature.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw OpenSSL.failure("ECDSA_SIG_set0")
        }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(signature, &out)
        guard length > 0, let out else { throw OpenSSL.failure("i2d_ECDSA_SIG") }
        defer { cafe_openssl_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// The raw 64-byte r‖s of a DER signature (what OpenSSL's signing gives).
    static func raw(fromDER der: [UInt8]) throws(IdentityError) -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw OpenSSL.failure("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(parsed) }
        var raw = [UInt8](repeating: 0, count: 2 * scalarBytes)
        let ok = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            BN_bn2binpad(ECDSA_SIG_get0_r(parsed), buffer.baseAddress, Int32(scalarBytes)) == Int32(scalarBytes)
                && BN_bn2binpad(ECDSA_SIG_get0_s(parsed), buffer.baseAddress! + scalarBytes, Int32(scalarBytes)) == Int32(scalarBytes)
        }
        guard ok else { throw OpenSSL.failure("BN_bn2binpad") }
        return raw
    }
}
