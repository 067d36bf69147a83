import Messages

/// Validates OpenID Connect ID tokens (OpenID Connect Core §3.1.3.7) from the configured issuers:
/// the signature with the issuer's keys, then `sub`, `aud` and `azp`, `exp`, `iat` and `nbf`
/// against the injected clock with a bounded skew, and `nonce` when the caller expects one.
/// Each refusal is an `IdentityError` saying which check failed; nothing is changed by any.
public struct IDTokenValidator: Sendable {
    /// The accepted issuers, by `iss`.
    public let issuers: [String: TrustedIssuer]
    /// How far the issuer's clock and ours may disagree, in seconds (0–`maxClockSkew`).
    public let clockSkew: Double
    public let limits: JWSLimits
    private let clock: any WallClock

    /// The largest clock skew allowed: five minutes, the usual tolerance (a larger one keeps
    /// an expired token usable for longer).
    public static let maxClockSkew = 300.0

    /// Refuses an issuer configured twice or with no audience (`identity.configuration`);
    /// a skew outside 0–`maxClockSkew` seconds is held to that range.
    public init(issuers: [TrustedIssuer], clock: any WallClock, clockSkew: Double = 60, limits: JWSLimits = .standard) throws(IdentityError) {
        var byName: [String: TrustedIssuer] = [:]
        for issuer in issuers {
            guard !issuer.audiences.isEmpty else {
                throw IdentityError(.configuration, "issuer \(JOSEHeader.shown(issuer.issuer)) has no allowed audience")
            }
            guard byName.updateValue(issuer, forKey: issuer.issuer) == nil else {
                throw IdentityError(.configuration, "issuer \(JOSEHeader.shown(issuer.issuer)) is configured twice")
            }
        }
        self.issuers = byName
        self.clock = clock
        self.clockSkew = clockSkew.isFinite ? min(max(clockSkew, 0), Self.maxClockSkew) : 0
        self.limits = limits
    }

    /// The user `token` signs in, or the first check it fails. `expectedNonce` is the nonce the
    /// client sent in its authentication request, when it sent one: the token must carry it.
    public func validate(_ token: String, expectedNonce: String? = nil) throws(IdentityError) -> SignedInUser {
        let jws = try CompactJWS(token, limits: limits)
        let claims = IDTokenClaims(jws.claims)
        // The issuer is read before the signature is checked only to choose whose keys check it.
        guard let iss = try claims.string("iss") else { throw IdentityError(.issuer, "the token has no \"iss\"") }
        guard let trusted = issuers[iss] else { throw IdentityError(.issuer, "issuer \(JOSEHeader.shown(iss)) is not configured") }
        try JWSVerifier.verify(jws, keys: trusted.keys)

        let subject = try claims.subject()
        let audience = try claims.audience(allowed: trusted.audiences)
        let now = clock.now()
        guard let expires = try claims.numericDate("exp") else { throw IdentityError(.claim, "the token has no \"exp\"") }
        guard let issued = try claims.numericDate("iat") else { throw IdentityError(.claim, "the token has no \"iat\"") }
        guard now < expires.adding(seconds: clockSkew) else {
            throw IdentityError(.expired, "the token expired at \(expires) (now \(now), skew \(Int(clockSkew)) s)")
        }
        guard issued <= now.adding(seconds: clockSkew) else {
            throw IdentityError(.notYetValid, "the token is issued at \(issued), in the future (now \(now), skew \(Int(clockSkew)) s)")
        }
        guard issued < expires else { throw IdentityError(.claim, "the token expires (\(expires)) before it is issued (\(issued))") }
        if let notBefore = try claims.numericDate("nbf"), notBefore > now.adding(seconds: clockSkew) {
            throw IdentityError(.notYetValid, "the token is not valid before \(notBefore) (now \(now))")
        }
        if let expectedNonce {
            guard let nonce = try claims.string("nonce") else { throw IdentityError(.nonce, "a nonce was expected and the token has none") }
            guard Self.same(nonce, expectedNonce) else { throw IdentityError(.nonce, "the token's nonce is not the one expected") }
        }
        return SignedInUser(issuer: iss, subject: subject, audience: audience, email: try claims.printable("email", maxBytes: 320),
                            emailVerified: try claims.flag("email_verified"), name: try claims.printable("name", maxBytes: 256),
                            issuedAt: issued, expiresAt: expires)
    }

    /// Equality in time that depends only on the lengths, not on where the first difference is.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
