import Foundation
import Messages

extension ES256Signer {
    /// An APNs provider token (token-based authentication): header `alg` ES256 and `kid` the
    /// key id; claims `iss` (the team id) and `iat` (whole seconds). APNs refuses one older than
    /// an hour and one renewed more often than every 20 minutes: the caller reuses it between.
    public func providerToken(teamID: String, issuedAt: Timestamp) throws(IdentityError) -> String {
        let claims: [String: ProviderClaim] = ["iss": .string(teamID), "iat": .integer(issuedAt.milliseconds / 1_000)]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let json = try? encoder.encode(claims) else { throw IdentityError(.crypto, "cannot encode the claims") }
        return try token(claims: json)
    }
}

/// A provider-token claim: a string or a whole number.
private enum ProviderClaim: Encodable {
    case string(String)
    case integer(Int64)

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        }
    }
}
