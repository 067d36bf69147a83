/// Checks a compact JWS's signature against a key set: the key its `kid` names, of the type its
/// `alg` requires, and the signature over the exact bytes received.
public enum JWSVerifier {
    /// Parses `token` and verifies it with `keys`; the parsed token, now trusted, or the typed refusal.
    public static func verify(_ token: String, keys: JWKSet, limits: JWSLimits = .standard) throws(IdentityError) -> CompactJWS {
        let jws = try CompactJWS(token, limits: limits)
        try verify(jws, keys: keys)
        return jws
    }

    /// Verifies an already parsed token with `keys`.
    public static func verify(_ jws: CompactJWS, keys: JWKSet) throws(IdentityError) {
        let key = try keys.key(for: jws.header)
        guard try key.key.verify(signature: jws.signature, message: jws.signingInput) else {
            throw IdentityError(.signature, "the \(jws.header.algorithm.rawValue) signature does not verify with key \(JOSEHeader.shown(key.keyID ?? "(no kid)"))")
        }
    }
}
