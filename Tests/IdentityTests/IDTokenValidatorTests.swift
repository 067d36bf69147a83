import Foundation
import Identity
import Messages
import Testing
import TestSupport

/// ID tokens from a local issuer that shares no code with the validator (`OpenSSLIssuer`).
@Suite("OpenID Connect ID tokens: accepted when every check holds, refused with the check that failed")
struct IDTokenValidatorTests {
    let issuer = OpenSSLIssuer.shared
    let clock = ManualClock()

    @Test("good RS256 and ES256 tokens sign in the user their claims name", arguments: ["RS256", "ES256"])
    func accepted(_ algorithm: String) throws {
        let key = algorithm == "RS256" ? issuer.rsa : issuer.ec
        let user = try validator(clock).validate(try issuer.token(claims(at: clock.now()), key: key), expectedNonce: "n-0S6_WzA2Mj")
        #expect(user.issuer == issuer.issuer)
        #expect(user.subject == "001234.abcdef.0042")
        #expect(user.audience == "cafe.campus.app")
        #expect(user.email == "alice@example.edu")
        #expect(user.emailVerified == true)
        #expect(user.name == "Alice Liddell")
        #expect(user.expiresAt.milliseconds == (clock.now().milliseconds / 1_000 + 600) * 1_000)
        // The platform's user id: stable, a platform id token, distinct per issuer.
        #expect(user.userID.hasPrefix("u-") && user.userID.count == 24)
        #expect(TextRules.isToken(user.userID, max: 64))
    }

    @Test("an audience array holding ours, with azp naming ours; no nonce expected and none sent")
    func audienceArray() throws {
        let token = try issuer.token(claims(at: clock.now(), ["aud": ["other-client", "cafe.campus.app.Clip"], "azp": "cafe.campus.app.Clip", "nonce": nil]), key: issuer.ec)
        #expect(try validator(clock).validate(token).audience == "cafe.campus.app.Clip")
    }

    @Test("signed by a forger's key under the issuer's kid: the signature does not verify", arguments: ["RS256", "ES256"])
    func forged(_ algorithm: String) throws {
        let key = algorithm == "RS256" ? issuer.forgedRSA : issuer.forgedEC
        #expect(refusal { try validator(clock).validate(try issuer.token(claims(at: clock.now()), key: key)) } == .signature)
    }

    @Test("a claim changed after signing: the signature no longer covers it")
    func tampered() throws {
        let token = try issuer.token(claims(at: clock.now()), key: issuer.rsa)
        let parts = token.split(separator: ".").map(String.init)
        let changed = OpenSSLIssuer.base64url(try JSONSerialization.data(withJSONObject: claims(at: clock.now(), ["sub": "mallory"]), options: [.sortedKeys]))
        #expect(refusal { try validator(clock).validate("\(parts[0]).\(changed).\(parts[2])") } == .signature)
    }

    @Test("a kid the issuer does not have, and no kid with two keys in the set")
    func unknownKey() throws {
        let wrongKid = try issuer.token(header: ["alg": "RS256", "kid": "rsa-2025"], claims: claims(at: clock.now()), key: issuer.rsa)
        #expect(refusal { try validator(clock).validate(wrongKid) } == .unknownKey)
        let noKid = try issuer.token(header: ["alg": "RS256"], claims: claims(at: clock.now()), key: issuer.rsa)
        #expect(refusal { try validator(clock).validate(noKid) } == .unknownKey)
    }

    @Test("alg none, with and without a signature")
    func algNone() throws {
        let input = OpenSSLIssuer.base64url(Data(#"{"alg":"none","kid":"rsa-2026"}"#.utf8)) + "."
            + OpenSSLIssuer.base64url(try JSONSerialization.data(withJSONObject: claims(at: clock.now())))
        #expect(refusal { try validator(clock).validate(input + ".") } == .algorithm)
        #expect(refusal { try validator(clock).validate(input + ".c2ln") } == .algorithm)
    }

    @Test("algorithm confusion: HS256 keyed with the issuer's RSA public key, and each key under the other's algorithm")
    func confusion() throws {
        let input = OpenSSLIssuer.base64url(Data(#"{"alg":"HS256","kid":"rsa-2026"}"#.utf8)) + "."
            + OpenSSLIssuer.base64url(try JSONSerialization.data(withJSONObject: claims(at: clock.now())))
        let publicPEM = try Data(contentsOf: issuer.rsa.publicPEM)
        let hex = publicPEM.map { String(format: "%02x", $0) }.joined()
        let file = issuer.folder.appendingPathComponent("hs-\(UUID().uuidString).in")
        try Data(input.utf8).write(to: file)
        let mac = try OpenSSLIssuer.openssl(["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:\(hex)", "-binary", "-hex", file.path])
        let digest = try OpenSSLIssuer.bytes(hex: String(mac.split(separator: " ").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(refusal { try validator(clock).validate(input + "." + OpenSSLIssuer.base64url(digest)) } == .algorithm)

        // ES256 claimed under the RSA key's kid, RS256 under the EC key's: signed with the key the kid names.
        let esUnderRSA = try issuer.token(header: ["alg": "ES256", "kid": issuer.rsa.kid], claims: claims(at: clock.now()), key: issuer.ec)
        #expect(refusal { try validator(clock).validate(esUnderRSA) } == .keyMismatch)
        let rsUnderEC = try issuer.token(header: ["alg": "RS256", "kid": issuer.ec.kid], claims: claims(at: clock.now()), key: issuer.rsa)
        #expect(refusal { try validator(clock).validate(rsUnderEC) } == .keyMismatch)
    }

    @Test("ES256 carrying OpenSSL's DER instead of r‖s, or r‖s cut or padded, is not a signature")
    func derIsNotJOSE() throws {
        let input = OpenSSLIssuer.base64url(Data(#"{"alg":"ES256","kid":"ec-2026"}"#.utf8)) + "."
            + OpenSSLIssuer.base64url(try JSONSerialization.data(withJSONObject: claims(at: clock.now())))
        let der = try issuer.derSignature(Data(input.utf8), with: issuer.ec)
        let raw = try OpenSSLIssuer.rawSignature(fromDER: der)
        for signature in [der, raw.prefix(63), raw + Data([0]), Data()] {
            #expect(refusal { try validator(clock).validate(input + "." + OpenSSLIssuer.base64url(signature)) } == .signature)
        }
        #expect(try validator(clock).validate(input + "." + OpenSSLIssuer.base64url(raw)).subject == "001234.abcdef.0042")
    }

    @Test("high-S ES256 signatures (s replaced by n − s) are accepted: JWS sets no low-S rule")
    func highS() throws {
        let input = OpenSSLIssuer.base64url(Data(#"{"alg":"ES256","kid":"ec-2026"}"#.utf8)) + "."
            + OpenSSLIssuer.base64url(try JSONSerialization.data(withJSONObject: claims(at: clock.now())))
        let raw = try OpenSSLIssuer.rawSignature(fromDER: try issuer.derSignature(Data(input.utf8), with: issuer.ec))
        let order = Array(try OpenSSLIssuer.bytes(hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"))
        var flipped = [UInt8](repeating: 0, count: 32), borrow = 0
        let s = Array(raw.suffix(32))
        for index in (0..<32).reversed() {
            let difference = Int(order[index]) - Int(s[index]) - borrow
            flipped[index] = UInt8((difference + 256) % 256)
            borrow = difference < 0 ? 1 : 0
        }
        let other = raw.prefix(32) + Data(flipped)
        #expect(try issuer.opensslVerifies(Data(input.utf8), derSignature: OpenSSLIssuer.derSignature(fromRaw: other), key: issuer.ec))
        #expect(try validator(clock).validate(input + "." + OpenSSLIssuer.base64url(other)).subject == "001234.abcdef.0042")
    }

    @Test("time: expired, issued in the future, not before, each beyond the skew; within it, accepted")
    func time() throws {
        let now = Int(clock.now().milliseconds / 1_000)
        let cases: [([String: Any?], IdentityError.Code?)] = [
            (["exp": now - 61, "iat": now - 600], .expired),
            (["exp": now - 59, "iat": now - 600], nil),
            (["exp": now, "iat": now - 600], nil),
            (["iat": now + 61, "exp": now + 600], .notYetValid),
            (["iat": now + 59, "exp": now + 600], nil),
            (["nbf": now + 120], .notYetValid),
            (["exp": nil], .claim),
            (["iat": nil], .claim),
            (["exp": "tomorrow"], .claim),
            (["iat": -1], .claim),
            (["exp": 1e300], .claim),
            (["iat": now + 30, "exp": now + 20], .claim),
        ]
        let checker = try validator(clock)
        for (changes, expected) in cases {
            let token = try issuer.token(claims(at: clock.now(), changes), key: issuer.rsa)
            #expect(refusal { try checker.validate(token) } == expected, "\(changes)")
        }
        // The skew is bounded: 5 minutes at most, whatever is configured.
        let lenient = try validator(clock, skew: 86_400)
        #expect(lenient.clockSkew == IDTokenValidator.maxClockSkew)
        let stale = try issuer.token(claims(at: clock.now(), ["exp": now - 301, "iat": now - 900]), key: issuer.rsa)
        #expect(refusal { try lenient.validate(stale) } == .expired)
    }

    @Test("the clock is the validator's: a token good now is expired once the clock moves past exp")
    func injectedClock() throws {
        let checker = try validator(clock)
        let token = try issuer.token(claims(at: clock.now()), key: issuer.ec)
        #expect(refusal { try checker.validate(token) } == nil)
        clock.advance(seconds: 661)
        #expect(refusal { try checker.validate(token) } == .expired)
    }

    @Test("issuer: another issuer signing with a trusted key, none at all, the wrong type")
    func issuers() throws {
        for iss in ["https://evil.example", "https://id.campus.test/", nil] as [String?] {
            let token = try issuer.token(claims(at: clock.now(), ["iss": iss]), key: issuer.rsa)
            #expect(refusal { try validator(clock).validate(token) } == .issuer, "\(iss ?? "none")")
        }
        let typed = try issuer.token(claims(at: clock.now(), ["iss": 7]), key: issuer.rsa)
        #expect(refusal { try validator(clock).validate(typed) } == .claim)
    }

    @Test("audience: another client, none, an empty array, non-strings, several without azp, azp naming another")
    func audience() throws {
        let cases: [[String: Any?]] = [
            ["aud": "someone-else"], ["aud": nil], ["aud": [String]()], ["aud": [1, 2]], ["aud": ["cafe.campus.app", "x"]],
            ["aud": "cafe.campus.app", "azp": "someone-else"], ["aud": ["cafe.campus.app"], "azp": 5],
        ]
        let checker = try validator(clock)
        for changes in cases {
            let token = try issuer.token(claims(at: clock.now(), changes), key: issuer.ec)
            #expect(refusal { try checker.validate(token) } == .audience, "\(changes)")
        }
    }

    @Test("nonce: expected and missing, expected and different, expected and of the wrong type")
    func nonce() throws {
        let missing = try issuer.token(claims(at: clock.now(), ["nonce": nil]), key: issuer.rsa)
        #expect(refusal { try validator(clock).validate(missing, expectedNonce: "n-0S6_WzA2Mj") } == .nonce)
        let good = try issuer.token(claims(at: clock.now()), key: issuer.rsa)
        #expect(refusal { try validator(clock).validate(good, expectedNonce: "n-0S6_WzA2Mk") } == .nonce)
        #expect(refusal { try validator(clock).validate(good, expectedNonce: "n-0S6_WzA2M") } == .nonce)
        let typed = try issuer.token(claims(at: clock.now(), ["nonce": 42]), key: issuer.rsa)
        #expect(refusal { try validator(clock).validate(typed, expectedNonce: "42") } == .claim)
    }

    @Test("subject and optional claims of the wrong shape")
    func shapes() throws {
        let cases: [([String: Any?], IdentityError.Code)] = [
            (["sub": nil], .subject), (["sub": ""], .subject), (["sub": String(repeating: "s", count: 256)], .subject),
            (["sub": "a\u{0}b"], .subject), (["sub": 12], .subject), (["email": ["a@b"]], .claim), (["email_verified": "yes"], .claim),
            (["name": "line\nbreak"], .claim),
        ]
        let checker = try validator(clock)
        for (changes, expected) in cases {
            let token = try issuer.token(claims(at: clock.now(), changes), key: issuer.ec)
            #expect(refusal { try checker.validate(token) } == expected, "\(changes)")
        }
    }

    @Test("through the validator too: malformed base64, oversize, wrong segment counts, a JWE")
    func shapesThroughValidator() throws {
        let good = try issuer.token(claims(at: clock.now()), key: issuer.rsa)
        let parts = good.split(separator: ".").map(String.init)
        let cases: [(String, IdentityError.Code)] = [
            ("\(parts[0]).\(parts[1])", .segments), ("\(good).\(parts[2])", .segments), ("\(parts[0]).\(parts[1]).\(parts[2]).a.b", .segments),
            (parts[0], .segments), ("\(parts[0])=.\(parts[1]).\(parts[2])", .base64), ("\(parts[0]).\(parts[1]).\(parts[2])=", .base64),
            ("\(parts[0]).\(parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")).\(parts[2])x", .base64),
            ("\(parts[0]).\(String(repeating: "A", count: 11_000)).\(parts[2])", .tooLarge),
            (String(repeating: "a.", count: 9_000), .tooLarge),
        ]
        let checker = try validator(clock)
        for (token, expected) in cases {
            #expect(refusal { try checker.validate(token) } == expected, "\(token.prefix(80))")
        }
    }

    @Test("configuration: an issuer twice, or with no audience, is refused")
    func configuration() throws {
        let keys = try JWKSet.parse(issuer.jwks)
        let one = TrustedIssuer(issuer: issuer.issuer, audiences: audiences, keys: keys)
        #expect(refusal { try IDTokenValidator(issuers: [one, one], clock: clock) } == .configuration)
        #expect(refusal { try IDTokenValidator(issuers: [TrustedIssuer(issuer: "x", audiences: [], keys: keys)], clock: clock) } == .configuration)
    }
}
