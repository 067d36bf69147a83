import CCrypto
import Foundation

/// Signs compact JWS tokens with ES256 from a P-256 private key: the JOSE signature is the raw
/// 64-byte r‖s (RFC 7518 §3.4), converted from the DER OpenSSL writes. APNs provider tokens
/// (issue 27) are such tokens; sending DER there is a bug that lenient verifiers hide.
///
/// `@unchecked Sendable`: the key is never changed after loading, and each signature uses its own
/// OpenSSL context, which OpenSSL 3 allows from several threads at once.
public final class ES256Signer: @unchecked Sendable {
    /// The `kid` the tokens' header names (APNs: the key's 10-character id).
    public let keyID: String?
    private let key: OpaquePointer

    /// The largest PEM file read; a P-256 key in PKCS #8 PEM is about 240 bytes.
    public static let maxPEMBytes = 16_384

    /// Loads an unencrypted P-256 private key from PEM: PKCS #8 ("BEGIN PRIVATE KEY", Apple's
    /// .p8 files) or SEC 1 ("BEGIN EC PRIVATE KEY"). Anything else is `signer.key`.
    public init(pem: Data, keyID: String?) throws(IdentityError) {
        guard !pem.isEmpty, pem.count <= Self.maxPEMBytes else {
            throw IdentityError(.signerKey, "a PEM key of \(pem.count) bytes; 1–\(Self.maxPEMBytes) are read")
        }
        if let keyID, keyID.isEmpty || keyID.utf8.count > JOSEHeader.maxKeyIDBytes {
            throw IdentityError(.signerKey, "a kid must be 1–\(JOSEHeader.maxKeyIDBytes) bytes")
        }
        let loaded = pem.withUnsafeBytes { cafe_read_private_key($0.baseAddress, Int32($0.count)) }
        guard let loaded else {
            throw IdentityError(.signerKey, "not an unencrypted PEM private key: \(OpenSSL.lastError())")
        }
        guard EVP_PKEY_get_base_id(loaded) == cafe_EVP_PKEY_EC(), Self.groupName(loaded) == "prime256v1" else {
            EVP_PKEY_free(loaded)
            throw IdentityError(.signerKey, "not a P-256 key (ES256 signs only with P-256)")
        }
        self.key = loaded
        self.keyID = keyID
    }

    /// Loads the PEM file at `path` (see `init(pem:keyID:)`).
    public convenience init(file path: String, keyID: String?) throws(IdentityError) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw IdentityError(.signerKey, "cannot open the key file \(path)") }
        defer { try? handle.close() }
        let data: Data
        do { data = try handle.read(upToCount: Self.maxPEMBytes + 1) ?? Data() } catch {
            throw IdentityError(.signerKey, "cannot read the key file \(path): \(error)")
        }
        try self.init(pem: data, keyID: keyID)
    }

    deinit { EVP_PKEY_free(key) }

    private static func groupName(_ key: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &buffer, buffer.count, &length) == 1 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The raw 64-byte r‖s ES256 signature of `message` (SHA-256, then ECDSA P-256).
    public func sign(_ message: [UInt8]) throws(IdentityError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSL.failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw OpenSSL.failure("EVP_DigestSignInit") }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw OpenSSL.failure("EVP_DigestSign") }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else { throw OpenSSL.failure("EVP_DigestSign") }
        return try ECDSASignature.raw(fromDER: Array(der.prefix(length)))
    }

    /// A compact JWS of `claims` (a JSON object's bytes, signed as given): header
    /// `{"alg":"ES256","kid":…}` (and `typ` when given), payload, raw r‖s signature.
    public func token(claims: Data, type: String? = nil) throws(IdentityError) -> String {
        var header: [String: String] = ["alg": JWSAlgorithm.es256.rawValue]
        header["kid"] = keyID
        header["typ"] = type
        // Sorted keys: the same header bytes every time, so a token is reproducible from its claims.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let headerJSON = try? encoder.encode(header) else { throw IdentityError(.crypto, "cannot encode the JOSE header") }
        let input = Base64URL.encode(headerJSON) + "." + Base64URL.encode(claims)
        let signature = try sign(Array(input.utf8))
        return input + "." + Base64URL.encode(signature)
    }
}
