/// A bearer session token: 256 random bits from OpenSSL's CSPRNG (seeded by the OS), shown to
/// its holder once as "cct_" and 43 base64url characters. The prefix lets secret scanners find
/// a leaked one. The store keeps only `hash`.
///
/// Never printed: `description`, `debugDescription` and the mirror `dump` uses all say
/// "redacted", so a token interpolated into a log line or an error does not leak. Only
/// `presented` gives the text, for the one reply that hands it over.
public struct SessionToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let secret: [UInt8]

    /// What every token starts with.
    public static let prefix = "cct_"
    /// Random bytes per token: 256 bits, twice the 128 a guess must beat.
    public static let secretBytes = 32
    /// The length of a presented token: the prefix and 43 base64url characters.
    public static let presentedLength = prefix.utf8.count + (secretBytes * 4 + 2) / 3

    private init(secret: [UInt8]) {
        self.secret = secret
    }

    /// A new token from the CSPRNG.
    public static func generate() throws(IdentityError) -> SessionToken {
        SessionToken(secret: try OpenSSL.randomBytes(secretBytes))
    }

    /// The token a client presented; `session.malformed` unless it has exactly the shape issued
    /// (checked before anything is hashed or looked up).
    public init(presented text: String) throws(IdentityError) {
        let bytes = Array(text.utf8)
        let prefix = Array(Self.prefix.utf8)
        guard bytes.count == Self.presentedLength, bytes.starts(with: prefix),
              let secret = Base64URL.decode(bytes.dropFirst(prefix.count)), secret.count == Self.secretBytes else {
            throw IdentityError(.sessionMalformed, "not a session token (\(bytes.count) bytes; tokens are \(Self.presentedLength): \(Self.prefix) and base64url)")
        }
        self.secret = secret
    }

    /// The token's text, for the reply that hands it to its holder. Nowhere else.
    public var presented: String { Self.prefix + Base64URL.encode(secret) }

    /// SHA-256 of the secret: what the store keeps and looks up. A hash, not the token, so a
    /// copy of the database gives no session away; plain SHA-256 suffices for 256 random bits.
    public var hash: [UInt8] { OpenSSL.sha256(secret) }

    public var description: String { "SessionToken(redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["secret": "redacted"]) }
}
