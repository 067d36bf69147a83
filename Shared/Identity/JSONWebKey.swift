/// One verification key from an issuer's JWKS (RFC 7517): its id, and the public key whose type
/// fixes the one algorithm it verifies.
public struct JSONWebKey: Sendable {
    /// `kid`, when the key has one.
    public let keyID: String?
    public let key: PublicKey

    /// The algorithm this key verifies.
    public var algorithm: JWSAlgorithm { key.algorithm }

    public init(keyID: String?, key: PublicKey) {
        self.keyID = keyID
        self.key = key
    }

    /// The longest base64url parameter read: an 8192-bit modulus is 1366 characters.
    static let maxParameterCharacters = 1_400

    /// Reads one member of `keys`. nil for a key this platform does not verify with and may skip
    /// (another key type or curve, an encryption key, an algorithm we do not accept); a key of
    /// a kind we use that is malformed is refused, never skipped.
    init?(_ object: [String: JSONValue], index: Int) throws(IdentityError) {
        func malformed(_ problem: String) -> IdentityError { IdentityError(.jwksMalformed, "keys[\(index)]: \(problem)") }
        func text(_ name: String) throws(IdentityError) -> String? {
            switch object[name] {
            case nil: return nil
            case .string(let value): return value
            default: throw malformed("\"\(name)\" must be a string")
            }
        }
        func parameter(_ name: String) throws(IdentityError) -> [UInt8] {
            guard let value = try text(name) else { throw malformed("no \"\(name)\"") }
            guard value.utf8.count <= Self.maxParameterCharacters else {
                throw IdentityError(.jwksTooLarge, "keys[\(index)]: \"\(name)\" is over \(Self.maxParameterCharacters) characters")
            }
            guard let bytes = Base64URL.decode(value), !bytes.isEmpty else { throw malformed("\"\(name)\" is not unpadded base64url") }
            return bytes
        }

        guard let type = try text("kty") else { throw malformed("no \"kty\"") }
        if let use = try text("use"), use != "sig" { return nil }
        if case .array(let operations)? = object["key_ops"], !operations.contains(.string("verify")) { return nil }
        let declared = try text("alg")
        let keyID = try text("kid")
        if let keyID, keyID.isEmpty || keyID.utf8.count > JOSEHeader.maxKeyIDBytes {
            throw malformed("\"kid\" must be 1–\(JOSEHeader.maxKeyIDBytes) bytes")
        }

        let expected: JWSAlgorithm
        switch type {
        case "RSA": expected = .rs256
        case "EC":
            // Only P-256 is ES256's curve; a P-384 or P-521 key belongs to algorithms we do not accept.
            guard try text("crv") == "P-256" else { return nil }
            expected = .es256
        default:
            return nil
        }
        if let declared, declared != expected.rawValue {
            // A key pinned to another algorithm of its type (PS256, RS512) is not ours to use; one
            // pinned to an algorithm of another type (an RSA key marked ES256) is a broken file.
            if JWSAlgorithm(rawValue: declared) != nil { throw malformed("\"alg\" \(JOSEHeader.shown(declared)) is not an algorithm of a \(type) key") }
            return nil
        }
        let key: PublicKey
        do {
            switch expected {
            case .rs256: key = try PublicKey.rsa(modulus: parameter("n"), exponent: parameter("e"))
            case .es256: key = try PublicKey.p256(x: parameter("x"), y: parameter("y"))
            }
        } catch where error.code == .jwksMalformed {
            throw malformed(error.message)
        }
        self.init(keyID: keyID, key: key)
    }
}
