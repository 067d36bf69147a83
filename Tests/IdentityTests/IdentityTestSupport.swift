import Foundation
import Identity
import Messages
import TestSupport

/// The code of the `IdentityError` a call is refused with; nil when it succeeds. Any other error
/// comes back as a code spelling it, so a test expecting a code sees what went wrong.
func refusal<T>(_ body: () throws -> T) -> IdentityError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as IdentityError {
        return error.code
    } catch {
        return IdentityError.Code(rawValue: "not an IdentityError: \(error)")
    }
}

/// The audiences the test platform accepts (the app's and the App Clip's client ids).
let audiences: Set<String> = ["cafe.campus.app", "cafe.campus.app.Clip"]

/// A validator trusting the shared test issuer's JWKS file, on `clock`.
func validator(_ clock: ManualClock, skew: Double = 60) throws -> IDTokenValidator {
    let issuer = OpenSSLIssuer.shared
    let trusted = try TrustedIssuer.load(issuer: issuer.issuer, audiences: audiences, jwksFile: try issuer.writeJWKS())
    return try IDTokenValidator(issuers: [trusted], clock: clock, clockSkew: skew)
}

/// Claims a good ID token carries at `now`: issued a few seconds ago, valid ten minutes.
func claims(at now: Timestamp, _ changes: [String: Any?] = [:]) -> [String: Any] {
    let seconds = Int(now.milliseconds / 1_000)
    var claims: [String: Any] = ["iss": OpenSSLIssuer.shared.issuer, "sub": "001234.abcdef.0042", "aud": "cafe.campus.app",
                                 "iat": seconds - 5, "exp": seconds + 600, "nonce": "n-0S6_WzA2Mj", "email": "alice@example.edu",
                                 "email_verified": "true", "name": "Alice Liddell"]
    for (name, value) in changes { claims[name] = value }
    return claims
}
