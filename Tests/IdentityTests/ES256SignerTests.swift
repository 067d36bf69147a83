import Foundation
import Identity
import Messages
import Testing

@Suite("ES256 signing: raw r‖s that our verifier and OpenSSL's command line both accept")
struct ES256SignerTests {
    let issuer = OpenSSLIssuer.shared

    @Test("a token from the signer verifies with the issuer's JWKS and, as DER, with openssl dgst -verify")
    func verifiesBothWays() throws {
        let signer = try ES256Signer(file: issuer.ec.privatePEM.path, keyID: issuer.ec.kid)
        let token = try signer.token(claims: Data(#"{"iss":"TEAM123456","iat":1782000000}"#.utf8))
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(signature.count == 64)
        let jws = try JWSVerifier.verify(token, keys: try JWKSet.parse(issuer.jwks))
        #expect(jws.header.algorithm == .es256 && jws.header.keyID == issuer.ec.kid)
        #expect(jws.claims["iss"] == .string("TEAM123456"))
        let input = Data("\(parts[0]).\(parts[1])".utf8)
        #expect(try issuer.opensslVerifies(input, derSignature: OpenSSLIssuer.derSignature(fromRaw: Data(signature)), key: issuer.ec))
        // And a signature is of its own input only.
        #expect(try !issuer.opensslVerifies(input + Data("x".utf8), derSignature: OpenSSLIssuer.derSignature(fromRaw: Data(signature)), key: issuer.ec))
    }

    @Test("many signatures: every one 64 bytes and valid, whatever the length of r and s in DER")
    func manySignatures() throws {
        let signer = try ES256Signer(pem: try Data(contentsOf: issuer.ec.privatePEM), keyID: nil)
        let keys = try JWKSet.parse(issuer.jwks)
        let key = try #require(keys.keys.first { $0.algorithm == .es256 })
        for index in 0..<200 {
            let message = Array("message \(index)".utf8)
            let signature = try signer.sign(message)
            #expect(signature.count == 64)
            #expect(try key.key.verify(signature: signature, message: message))
            #expect(try !key.key.verify(signature: signature, message: message + [0]))
        }
    }

    @Test("an APNs provider token: header alg and kid, claims iss and iat in whole seconds")
    func providerToken() throws {
        let signer = try ES256Signer(file: issuer.ec.privatePEM.path, keyID: issuer.ec.kid)
        let token = try signer.providerToken(teamID: "TEAM123456", issuedAt: Timestamp(milliseconds: 1_782_000_000_999))
        let jws = try JWSVerifier.verify(token, keys: try JWKSet.parse(issuer.jwks))
        #expect(jws.claims == ["iss": .string("TEAM123456"), "iat": .integer(1_782_000_000)])
        let header = try #require(Base64URL.decode(String(token.split(separator: ".")[0])))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"ES256","kid":"ec-2026"}"#)
    }

    @Test("keys that cannot sign ES256 are refused: RSA, P-384, encrypted, not PEM, empty, missing")
    func refusals() throws {
        let folder = issuer.folder
        let p384 = folder.appendingPathComponent("p384-\(UUID().uuidString).pem")
        try OpenSSLIssuer.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", p384.path])
        let encrypted = folder.appendingPathComponent("enc-\(UUID().uuidString).pem")
        try OpenSSLIssuer.openssl(["pkey", "-in", issuer.ec.privatePEM.path, "-aes256", "-passout", "pass:secret", "-out", encrypted.path])
        for path in [issuer.rsa.privatePEM.path, p384.path, encrypted.path, issuer.ec.publicPEM.path, folder.appendingPathComponent("none.pem").path] {
            #expect(refusal { try ES256Signer(file: path, keyID: "k") } == .signerKey, "\(path)")
        }
        #expect(refusal { try ES256Signer(pem: Data(), keyID: nil) } == .signerKey)
        #expect(refusal { try ES256Signer(pem: Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8), keyID: nil) } == .signerKey)
        #expect(refusal { try ES256Signer(file: issuer.ec.privatePEM.path, keyID: "") } == .signerKey)
    }
}
