import Messages

/// Who an ID token that passed every check says signed in: the claims the platform maps to a user.
public struct SignedInUser: Sendable, Equatable {
    /// `iss`: the issuer that vouches for the subject.
    public let issuer: String
    /// `sub`: the issuer's stable id of the person (never reassigned, unlike an email address).
    public let subject: String
    /// Our client id the token was issued for (the `aud` entry that matched).
    public let audience: String
    /// `email`, when the issuer shares it.
    public let email: String?
    /// `email_verified` (true or false, or the strings Apple sends), when given.
    public let emailVerified: Bool?
    /// `name`, when the issuer shares it (Apple never puts it in the token).
    public let name: String?
    public let issuedAt: Timestamp
    public let expiresAt: Timestamp

    /// The platform's user id for this person: "u-" and 22 base64url characters, the first 128
    /// bits of SHA-256(issuer, NUL, subject). Stable across sign-ins, distinct per issuer (the
    /// same `sub` at two issuers is two people), and a token by the platform's id rules
    /// (`TextRules.isToken`), whatever characters the issuer's `sub` holds.
    public var userID: String {
        let digest = OpenSSL.sha256(Array(issuer.utf8) + [0] + Array(subject.utf8))
        return "u-" + Base64URL.encode(digest.prefix(16))
    }
}
