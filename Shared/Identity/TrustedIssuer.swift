/// One OpenID Connect issuer the platform accepts ID tokens from: its exact `iss`, the audiences
/// (our client ids at that provider) a token must be issued for, and its verification keys.
public struct TrustedIssuer: Sendable {
    /// The issuer identifier, compared exactly (`https://appleid.apple.com`).
    public let issuer: String
    /// The client ids a token may be issued for (the app's and the App Clip's bundle ids at Apple).
    public let audiences: Set<String>
    public let keys: JWKSet

    public init(issuer: String, audiences: Set<String>, keys: JWKSet) {
        self.issuer = issuer
        self.audiences = audiences
        self.keys = keys
    }

    /// The issuer with its keys read from `jwksFile` (re-read by loading again, on SIGHUP for example).
    public static func load(issuer: String, audiences: Set<String>, jwksFile: String) throws(IdentityError) -> TrustedIssuer {
        TrustedIssuer(issuer: issuer, audiences: audiences, keys: try JWKSet.read(file: jwksFile))
    }
}
