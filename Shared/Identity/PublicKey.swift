import CCrypto

/// A public key to verify JWS signatures with: RSA (RS256) or EC P-256 (ES256). Owns its
/// `EVP_PKEY`. Built only from a JWK's parameters, and checked by OpenSSL as it is built (an EC
/// point must be on the curve; an RSA exponent odd and above 1).
///
/// `@unchecked Sendable`: the key is never changed after it is built, and OpenSSL 3 allows one
/// `EVP_PKEY` to be used for verification from several threads at once (each call has its own context).
public final class PublicKey: @unchecked Sendable {
    /// The one algorithm this key verifies: its type decides, never a token's header.
    public let algorithm: JWSAlgorithm
    /// The key size in bits (RSA modulus or curve order).
    public let bits: Int
    private let key: OpaquePointer

    /// RSA moduli accepted: 2048 bits (RFC 7518 §3.3's minimum) to 8192.
    public static let rsaBits = 2_048...8_192

    private init(_ key: OpaquePointer, algorithm: JWSAlgorithm) {
        self.key = key
        self.algorithm = algorithm
        self.bits = Int(EVP_PKEY_get_bits(key))
    }

    deinit { EVP_PKEY_free(key) }

    /// An RSA key from its big-endian modulus and exponent (a JWK's `n` and `e`).
    public static func rsa(modulus: [UInt8], exponent: [UInt8]) throws(IdentityError) -> PublicKey {
        let n = modulus.drop { $0 == 0 }, e = exponent.drop { $0 == 0 }
        guard rsaBits.contains(n.count * 8 - (n.first.map { $0.leadingZeroBitCount } ?? 0)) else {
            throw IdentityError(.jwksMalformed, "an RSA modulus of \(n.count * 8) bits; \(rsaBits.lowerBound)–\(rsaBits.upperBound) are accepted")
        }
        // 2^16+1 is what every issuer uses; eight bytes leaves room for any real exponent.
        guard !e.isEmpty, e.count <= 8, e.last! & 1 == 1, e != [1] else {
            throw IdentityError(.jwksMalformed, "an RSA exponent must be odd, above 1 and at most 8 bytes")
        }
        let modulus = Array(n), exponent = Array(e)
        let key = try checked(type: "RSA", cafe_rsa_public_key(modulus, Int32(modulus.count), exponent, Int32(exponent.count)))
        return PublicKey(key, algorithm: .rs256)
    }

    /// A P-256 key from its affine coordinates (a JWK's `x` and `y`, 32 bytes each).
    public static func p256(x: [UInt8], y: [UInt8]) throws(IdentityError) -> PublicKey {
        guard x.count == 32, y.count == 32 else {
            throw IdentityError(.jwksMalformed, "P-256 coordinates are 32 bytes each; got \(x.count) and \(y.count)")
        }
        let point = [0x04] + x + y   // SEC 1 uncompressed form
        let key = try checked(type: "EC", cafe_p256_public_key(point, point.count))
        return PublicKey(key, algorithm: .es256)
    }

    /// The key the shim built (`cafe_rsa_public_key`, `cafe_p256_public_key`: OpenSSL's parameter
    /// builder borrows pointers Swift would not keep alive), once OpenSSL's public key check
    /// passes. A key OpenSSL will not build or that fails the check is `jwks.malformed`.
    private static func checked(type: String, _ built: OpaquePointer?) throws(IdentityError) -> OpaquePointer {
        guard let key = built else {
            throw IdentityError(.jwksMalformed, "OpenSSL will not build this \(type) key: \(OpenSSL.lastError())")
        }
        guard let check = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            EVP_PKEY_free(key)
            throw OpenSSL.failure("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(check) }
        guard EVP_PKEY_public_check(check) == 1 else {
            EVP_PKEY_free(key)
            throw IdentityError(.jwksMalformed, "this \(type) key fails OpenSSL's public key check: \(OpenSSL.lastError())")
        }
        return key
    }

    /// Whether `signature` is this key's signature over `message` with its algorithm (SHA-256;
    /// PKCS #1 v1.5 for RSA; for ES256 the raw r‖s, which must be exactly 64 bytes).
    ///
    /// ES256 accepts both s and n−s (a "high-S" signature): JWS defines no low-S rule, and a
    /// token's signature is never used as its identity here, so malleability gives nothing away.
    public func verify(signature: [UInt8], message: [UInt8]) throws(IdentityError) -> Bool {
        let encoded: [UInt8]
        switch algorithm {
        case .rs256:
            // PKCS #1 v1.5 signatures are exactly the modulus's length.
            guard signature.count == Int(EVP_PKEY_get_size(key)) else { return false }
            encoded = signature
        case .es256:
            guard let der = try ECDSASignature.der(fromRaw: signature) else { return false }
            encoded = der
        }
        guard let context = EVP_MD_CTX_new() else { throw OpenSSL.failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw OpenSSL.failure("EVP_DigestVerifyInit") }
        let result = EVP_DigestVerify(context, encoded, encoded.count, message, message.count)
        // 0 is "does not verify", a negative value a malformed signature: both are a bad signature.
        if result != 1 { _ = OpenSSL.lastError() }
        return result == 1
    }
}
