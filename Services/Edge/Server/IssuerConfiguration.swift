import Foundation
import Identity
import Messages

/// The OpenID Connect issuers the edge accepts sign-ins from, read from `--issuers`: a JSON array
/// of at most 16 entries, each
/// `{"issuer": "https://appleid.apple.com", "audiences": ["edu.campus.cafe"], "jwksFile": "apple-jwks.json", "userId": "derived"}`.
/// `userId` says which claim becomes the platform's user id: `derived` (the default:
/// `SignedInUser.userID`, "u-" and 22 characters, stable and distinct per issuer) or `sub` (the
/// issuer's subject as it is, for a corporate IdP whose subjects are already the campus ids; it
/// must then be an id by the platform's rules). A relative `jwksFile` is read beside the file.
public struct IssuerConfiguration: Sendable {
    /// Which claim becomes the user id.
    public enum UserIdClaim: String, Sendable, Codable {
        case derived, sub
    }

    public let issuers: [TrustedIssuer]
    /// By issuer.
    public let userIdClaims: [String: UserIdClaim]

    /// The most issuers one file names, and the largest file read.
    public static let maxIssuers = 16
    public static let maxFileBytes = 64 * 1_024

    struct Entry: Decodable {
        let issuer: String
        let audiences: [String]
        let jwksFile: String
        let userId: UserIdClaim?
    }

    /// No issuers: every sign-in is refused (503).
    public init() {
        issuers = []
        userIdClaims = [:]
    }

    /// The issuers in `path`, each JWKS read; any fault is an `IdentityError` naming it (a start error).
    public init(file path: String) throws(IdentityError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw IdentityError(.configuration, "cannot read the issuers file \(path)")
        }
        guard data.count <= Self.maxFileBytes, !Wire.nestsTooDeep(data),
              let entries = try? JSONDecoder().decode([Entry].self, from: data), entries.count <= Self.maxIssuers else {
            throw IdentityError(.configuration, "\(path) is not a JSON array of at most \(Self.maxIssuers) issuers (issuer, audiences, jwksFile, userId)")
        }
        let folder = (path as NSString).deletingLastPathComponent
        var issuers: [TrustedIssuer] = []
        var claims: [String: UserIdClaim] = [:]
        for entry in entries {
            let jwks = entry.jwksFile.hasPrefix("/") ? entry.jwksFile : (folder as NSString).appendingPathComponent(entry.jwksFile)
            issuers.append(try TrustedIssuer.load(issuer: entry.issuer, audiences: Set(entry.audiences), jwksFile: jwks))
            claims[entry.issuer] = entry.userId ?? .derived
        }
        self.issuers = issuers
        userIdClaims = claims
    }

    /// The platform's user id for `user`, by its issuer's rule; nil when the rule is `sub` and the
    /// subject is not an id by the platform's rules.
    public func userId(of user: SignedInUser) -> String? {
        switch userIdClaims[user.issuer] ?? .derived {
        case .derived: return user.userID
        case .sub: return TextRules.isToken(user.subject, max: 64) ? user.subject : nil
        }
    }
}
