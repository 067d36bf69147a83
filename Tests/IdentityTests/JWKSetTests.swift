import Foundation
import Identity
import Testing

@Suite("JWKS files: read with bounds; keys we do not use skipped, broken keys of kinds we use refused")
struct JWKSetTests {
    let issuer = OpenSSLIssuer.shared

    func document(_ keys: [[String: Any]]) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["keys": keys])
    }

    @Test("the issuer's RSA and P-256 keys read from a file, each fixed to its algorithm")
    func reads() throws {
        let set = try JWKSet.read(file: try issuer.writeJWKS())
        #expect(set.keys.map(\.keyID) == ["rsa-2026", "ec-2026"])
        #expect(set.keys.map(\.algorithm) == [.rs256, .es256])
        #expect(set.keys[0].key.bits == 2048)
        #expect(set.keys[1].key.bits == 256)
    }

    @Test("keys for something else are skipped: an HMAC secret, another curve, an encryption key, PS256, verify not allowed")
    func skipped() throws {
        let others: [[String: Any]] = [
            ["kty": "oct", "kid": "hmac", "k": "c2VjcmV0"],
            ["kty": "EC", "crv": "P-384", "kid": "p384", "x": "AA", "y": "AA"],
            issuer.rsa.jwk.merging(["kid": "enc", "use": "enc"]) { $1 },
            issuer.rsa.jwk.merging(["kid": "ps", "alg": "PS256"]) { $1 },
            (issuer.ec.jwk as [String: Any]).merging(["kid": "ops", "key_ops": ["sign"]]) { $1 },
        ]
        let set = try JWKSet.parse(try document(others + [issuer.ec.jwk]))
        #expect(set.keys.map(\.keyID) == ["ec-2026"])
        #expect(refusal { try JWKSet.parse(try document(others)) } == .jwksEmpty)
        #expect(refusal { try JWKSet.parse(try document([])) } == .jwksEmpty)
    }

    @Test("malformed keys of the kinds we use are refused, not skipped")
    func malformed() throws {
        let x = issuer.ec.jwk["x"]!, y = issuer.ec.jwk["y"]!
        var offCurve = Array(try OpenSSLIssuer.bytes(hex: "00")) + Array(repeating: 1, count: 31)
        offCurve[0] = 1
        let broken: [[String: Any]] = [
            ["kty": "RSA", "kid": "a", "e": "AQAB"],
            issuer.rsa.jwk.merging(["n": "AQAB"]) { $1 },                                   // a 17-bit modulus
            issuer.rsa.jwk.merging(["e": "AQ"]) { $1 },                                     // e = 1
            issuer.rsa.jwk.merging(["e": "Ag"]) { $1 },                                     // even
            issuer.rsa.jwk.merging(["n": issuer.rsa.jwk["n"]! + "="]) { $1 },               // padded
            issuer.rsa.jwk.merging(["alg": "ES256"]) { $1 },                                 // an RSA key for ES256
            ["kty": "EC", "crv": "P-256", "kid": "b", "x": x],
            ["kty": "EC", "crv": "P-256", "kid": "c", "x": x, "y": OpenSSLIssuer.base64url(Data(offCurve))],
            ["kty": "EC", "crv": "P-256", "kid": "d", "x": x + "AA", "y": y],
            ["kty": "EC", "crv": "P-256", "kid": "", "x": x, "y": y],
            ["kty": 5],
            ["kid": "no-kty"],
        ]
        for key in broken {
            #expect(refusal { try JWKSet.parse(try document([key])) } == .jwksMalformed, "\(key)")
        }
        #expect(refusal { try JWKSet.parse(try document([issuer.ec.jwk, issuer.ec.jwk])) } == .jwksMalformed, "a kid twice")
        for text in ["[]", "{}", #"{"keys":{}}"#, #"{"keys":[1]}"#, "nope", #"{"keys":[],"keys":[]}"#] {
            #expect(refusal { try JWKSet.parse(Data(text.utf8)) } == .jwksMalformed, "\(text)")
        }
    }

    @Test("bounds: the file's size, the number of keys, a parameter's length; a missing file")
    func bounds() throws {
        let many = Array(repeating: ["kty": "oct", "k": "AA"], count: JWKSet.maxKeys + 1)
        #expect(refusal { try JWKSet.parse(try document(many)) } == .jwksTooLarge)
        let padding = String(repeating: " ", count: JWKSet.maxFileBytes)
        #expect(refusal { try JWKSet.parse(Data((#"{"keys":[]}"# + padding).utf8)) } == .jwksTooLarge)
        #expect(refusal { try JWKSet.read(file: try issuer.writeJWKS(Data((#"{"keys":[]}"# + padding).utf8))) } == .jwksTooLarge)
        let long = issuer.rsa.jwk.merging(["n": String(repeating: "A", count: 2_000)]) { $1 }
        #expect(refusal { try JWKSet.parse(try document([long])) } == .jwksTooLarge)
        #expect(refusal { try JWKSet.read(file: issuer.folder.appendingPathComponent("missing.json").path) } == .jwksUnreadable)
    }

    @Test("an RSA key under 2048 bits is refused")
    func weakRSA() throws {
        let weak = try OpenSSLIssuer.makeRSA(in: issuer.folder, name: "weak-\(UUID().uuidString)", kid: "weak", bits: 1024)
        #expect(refusal { try JWKSet.parse(try document([weak.jwk])) } == .jwksMalformed)
    }
}
