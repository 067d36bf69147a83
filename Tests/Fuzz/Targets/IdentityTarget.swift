import Foundation
import Identity
import Messages

/// What the HTTP edge decodes from a client before it knows who the client is: ID tokens
/// (compact JWS through `CompactJWS`, `JWSVerifier` and `IDTokenValidator`) and issuers' JWKS
/// files (`JWKSet.parse`). Every refusal must be an `IdentityError` (the signatures say so), and:
/// base64url is canonical (what decodes, encodes back to the same text); a parsed token's signed
/// bytes are the input's first two segments; a JWKS read holds at most its limit of keys, none
/// with the same kid; a token the validator accepts is within its time checks.
///
/// An input is a mode (its first byte) and a body: 0, a token's text; 1, a JWKS document; 2, a
/// header and claims JSON separated by a NUL, which the target signs with its own test key so
/// the claims reach the checks past the signature.
enum IdentityTarget {
    /// A P-256 key made for this target alone (it signs nothing anywhere else).
    static let privateKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgetfwEi8+dQjunK1e
        mHMAj/s2itzlPon33/3SUeuOcd6hRANCAAQalYJlK9zOHMwOs8E+osAfUzl/d5n9
        r7GgLkniiaFPqobzupwnsdzEW4g1aVCik8w2LwpNVKtBAUDNvfWDMkAl
        -----END PRIVATE KEY-----

        """
    /// Its public half, and an RSA key, as a JWKS.
    static let jwks = """
        {"keys":[{"kty":"EC","crv":"P-256","kid":"fuzz-ec","use":"sig","x":"GpWCZSvczhzMDrPBPqLAH1M5f3eZ_a-xoC5J4omhT6o",\
        "y":"hvO6nCex3MRbiDVpUKKTzDYvCk1Uq0EBQM299YMyQCU"},{"kty":"RSA","kid":"fuzz-rsa","alg":"RS256","e":"AQAB","n":\
        "nAAHSicF1teolLspfuD5V7m8xTb1OgoFYiuZsx0K1oMYQqb0yToQurItvdZBWzXofez9z-X1FnTTY3D4wDdSPj6Tir96jMULsuvqGDoTWEKXiKvUwB31PLTek5cfFD7z\
        O9sYNc8sSrO8sEJj9j3WTSzbdpuqLii2J3ddJcg0Qdf3gY9cC-ObLhqzb30H2CAv8JiZlxd4bECFTLSHHKMikGsgAgvjcqFFXorYYOz5dmwZAI3X-YxszQA75goX1D5IQVPhN\
        -CChzWfMOzXT6f-cpVptqqlJuijoa2ujAQrsM7bhdFwNaXGUIoH0G0Yp845toFm2-TUOSVJoMexCMgzcw"}]}
        """
    static let issuer = "https://id.fuzz.test"
    static let now = Timestamp(milliseconds: 1_782_000_000_000)

    /// The clock the validator reads: always `now`.
    struct FixedClock: WallClock {
        func now() -> Timestamp { IdentityTarget.now }
    }

    static func make() -> FuzzTarget {
        // Built once per target; a broken fixture is a broken build of the fuzzer, so it traps.
        let keys = try! JWKSet.parse(Data(jwks.utf8))
        let signer = try! ES256Signer(pem: Data(privateKey.utf8), keyID: "fuzz-ec")
        let validator = try! IDTokenValidator(issuers: [TrustedIssuer(issuer: issuer, audiences: ["cafe.app"], keys: keys)], clock: FixedClock())
        return FuzzTarget("identity", "ID tokens through CompactJWS, JWSVerifier and IDTokenValidator; JWKS documents through JWKSet.parse",
                          seeds: { seeds(signer) }) { input in
            guard let mode = input.first else { return nil }
            let body = input.dropFirst()
            switch mode % 3 {
            case 0: return token(String(decoding: body, as: UTF8.self), keys: keys, validator: validator)
            case 1: return keySet(Data(body))
            default:
                let parts = body.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else { return nil }
                let input = Base64URL.encode(parts[0]) + "." + Base64URL.encode(parts[1])
                guard let signature = try? signer.sign(Array(input.utf8)) else { return "the signer failed on \(input.utf8.count) bytes" }
                return token(input + "." + Base64URL.encode(signature), keys: keys, validator: validator)
            }
        }
    }

    static func token(_ text: String, keys: JWKSet, validator: IDTokenValidator) -> String? {
        let segments = text.split(separator: ".", omittingEmptySubsequences: false)
        for segment in segments {
            if let bytes = Base64URL.decode(String(segment)), Base64URL.encode(bytes) != segment {
                return "base64url is not canonical: \(Agreement.text(Data(segment.utf8))) reads back as \(Base64URL.encode(bytes))"
            }
        }
        if let jws = try? CompactJWS(text) {
            guard segments.count == 3, jws.signingInput == Array("\(segments[0]).\(segments[1])".utf8) else {
                return "a token parsed whose signed bytes are not its first two segments: \(Agreement.text(Data(text.utf8)))"
            }
            _ = try? JWSVerifier.verify(jws, keys: keys)
        }
        if let user = try? validator.validate(text) {
            let skew = validator.clockSkew
            if !(now < user.expiresAt.adding(seconds: skew)) || user.issuedAt > now.adding(seconds: skew) || user.issuer != issuer {
                return "a token outside its time checks or from another issuer was accepted: \(user)"
            }
        }
        return nil
    }

    static func keySet(_ data: Data) -> String? {
        guard let set = try? JWKSet.parse(data) else { return nil }
        let ids = set.keys.compactMap(\.keyID)
        if set.keys.count > JWKSet.maxKeys || Set(ids).count != ids.count || set.keys.isEmpty {
            return "a JWKS read with \(set.keys.count) keys, kids \(ids.prefix(5))"
        }
        return nil
    }

    /// A good token and its variants, the JWKS and variants, header-and-claims pairs.
    static func seeds(_ signer: ES256Signer) -> [Data] {
        let seconds = now.milliseconds / 1_000
        let claims = #"{"iss":"\#(issuer)","sub":"fuzz-user","aud":"cafe.app","iat":\#(seconds - 10),"exp":\#(seconds + 600),"nonce":"n1","email":"a@b.c","email_verified":"true"}"#
        let arrayAudience = #"{"iss":"\#(issuer)","sub":"s","aud":["x","cafe.app"],"azp":"cafe.app","iat":\#(seconds),"exp":\#(seconds + 1),"nbf":\#(seconds)}"#
        var seeds: [Data] = []
        for header in [#"{"alg":"ES256","kid":"fuzz-ec"}"#, #"{"alg":"ES256"}"#, #"{"alg":"RS256","kid":"fuzz-rsa","typ":"JWT"}"#] {
            for body in [claims, arrayAudience] {
                seeds.append(Data([2]) + Data(header.utf8) + Data([0]) + Data(body.utf8))
                if let token = try? signer.token(claims: Data(body.utf8)) { seeds.append(Data([0]) + Data(token.utf8)) }
            }
        }
        let none = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + "."
        seeds.append(Data([0]) + Data(none.utf8))
        seeds.append(Data([1]) + Data(jwks.utf8))
        seeds.append(Data([1]) + Data(#"{"keys":[{"kty":"oct","k":"AA"},{"kty":"EC","crv":"P-384","x":"AA","y":"AA"}]}"#.utf8))
        return seeds
    }
}
