/// The JWS algorithms we verify (RFC 7518 §3): RSASSA-PKCS1-v1_5 and ECDSA P-256, both with
/// SHA-256. Everything else is refused by name before any key is looked at: `none`, which would
/// need no signature; the HMAC family, which would turn a public key into a shared secret (the
/// classic algorithm-confusion forgery); PS256 and the larger curves, which no issuer we serve needs.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable {
    case rs256 = "RS256"
    case es256 = "ES256"
}
