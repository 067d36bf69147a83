/// Why a token, a key set, a signing key or a session was refused: a stable dotted code and a
/// message for logs. The message never carries a token or a secret, only its shape.
public struct IdentityError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The stable codes. `jws.*` is the token's shape and signature, `idToken.*` its claims,
    /// `jwks.*` an issuer's key file, `signer.*` a signing key, `session.*` a session token.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The token, or its header or claims once decoded, is over its limit.
        public static let tooLarge = Code(rawValue: "jws.tooLarge")
        /// Not three dot-separated segments (a JWE has five; a bare JSON none).
        public static let segments = Code(rawValue: "jws.segments")
        /// A segment is not unpadded base64url (RFC 7515 §2).
        public static let base64 = Code(rawValue: "jws.base64")
        /// The JOSE header is not a JSON object with a string `alg`, or names extensions (`crit`).
        public static let header = Code(rawValue: "jws.header")
        /// The payload is not a JSON object (or nests too deep, or repeats a member).
        public static let payload = Code(rawValue: "jws.payload")
        /// An algorithm we do not accept: `none`, the HMAC family, anything but RS256 and ES256.
        public static let algorithm = Code(rawValue: "jws.algorithm")
        /// No key of the issuer has the token's `kid` (or the token names none).
        public static let unknownKey = Code(rawValue: "jws.unknownKey")
        /// The header's `alg` is not the algorithm of the key its `kid` names.
        public static let keyMismatch = Code(rawValue: "jws.keyMismatch")
        /// The signature does not verify (or is not the length its algorithm gives).
        public static let signature = Code(rawValue: "jws.signature")

        /// `iss` is missing or not a configured issuer.
        public static let issuer = Code(rawValue: "idToken.issuer")
        /// `aud` names none of the issuer's allowed audiences (or `azp` names another party).
        public static let audience = Code(rawValue: "idToken.audience")
        /// `exp` is past (beyond the allowed clock skew).
        public static let expired = Code(rawValue: "idToken.expired")
        /// `iat` (or `nbf`) is in the future beyond the allowed clock skew.
        public static let notYetValid = Code(rawValue: "idToken.notYetValid")
        /// The caller expected a nonce and the token carries another, or none.
        public static let nonce = Code(rawValue: "idToken.nonce")
        /// `sub` is missing, empty, too long or not printable.
        public static let subject = Code(rawValue: "idToken.subject")
        /// A claim is missing or of the wrong type (`exp`, `iat`, `email`, …).
        public static let claim = Code(rawValue: "idToken.claim")

        /// The JWKS file cannot be read.
        public static let jwksUnreadable = Code(rawValue: "jwks.unreadable")
        /// The JWKS file or one of its keys is over its limit (bytes, keys, modulus size).
        public static let jwksTooLarge = Code(rawValue: "jwks.tooLarge")
        /// The JWKS file is not `{"keys": [...]}`, or a key of a kind we use is malformed.
        public static let jwksMalformed = Code(rawValue: "jwks.malformed")
        /// The JWKS file holds no key we can verify with.
        public static let jwksEmpty = Code(rawValue: "jwks.empty")

        /// A signing key that does not read, or is not an unencrypted P-256 private key.
        public static let signerKey = Code(rawValue: "signer.key")
        /// An identity setting that cannot be used: an issuer configured twice, one with no audience.
        public static let configuration = Code(rawValue: "identity.configuration")
        /// libcrypto failed where it should not (out of memory, a broken provider).
        public static let crypto = Code(rawValue: "crypto.failure")

        /// Not the shape of a session token this platform issues.
        public static let sessionMalformed = Code(rawValue: "session.malformed")
        /// No session has this token (never issued, or purged).
        public static let sessionUnknown = Code(rawValue: "session.unknown")
        /// The session has expired.
        public static let sessionExpired = Code(rawValue: "session.expired")
        /// The session was revoked.
        public static let sessionRevoked = Code(rawValue: "session.revoked")
        /// A session that may not be issued: a missing or malformed principal field, a lifetime out of bounds.
        public static let sessionInvalid = Code(rawValue: "session.invalid")
        /// No session has this id (list and revoke by id).
        public static let sessionNotFound = Code(rawValue: "session.notFound")
        /// The session store's SQLite file failed; nothing was changed.
        public static let sessionStorage = Code(rawValue: "session.storage")
    }
}
