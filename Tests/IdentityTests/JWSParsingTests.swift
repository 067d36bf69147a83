import Foundation
import Identity
import Testing

@Suite("Compact JWS: every wrong shape refused with its own code before any key is used")
struct JWSParsingTests {
    static func segment(_ json: String) -> String { OpenSSLIssuer.base64url(Data(json.utf8)) }
    static let header = segment(#"{"alg":"RS256","kid":"rsa-2026"}"#)
    static let payload = segment(#"{"sub":"x"}"#)
    static let signature = OpenSSLIssuer.base64url(Data(repeating: 7, count: 256))

    @Test("a well-formed token parses: its header, claims, signature and the bytes signed")
    func parses() throws {
        let jws = try CompactJWS("\(Self.header).\(Self.payload).\(Self.signature)")
        #expect(jws.header.algorithm == .rs256)
        #expect(jws.header.keyID == "rsa-2026")
        #expect(jws.claims["sub"] == .string("x"))
        #expect(jws.signature.count == 256)
        #expect(jws.signingInput == Array("\(Self.header).\(Self.payload)".utf8))
    }

    @Test("wrong segment counts: one, two, four, five (a JWE), an empty string", arguments: [
        "", "\(header)", "\(header).\(payload)", "\(header).\(payload).\(signature).x", "\(header).a.b.c.d",
    ])
    func segments(_ token: String) {
        #expect(refusal { try CompactJWS(token) } == .segments)
    }

    @Test("malformed base64url in each segment: padding, the standard alphabet, a stray character", arguments: [
        "\(header)=.\(payload).\(signature)", "\(header).\(payload)+.\(signature)", "\(header).\(payload).\(signature)/",
        "\(header).\(payload).a", "e yJ.\(payload).\(signature)",
    ])
    func base64(_ token: String) {
        #expect(refusal { try CompactJWS(token) } == .base64)
    }

    @Test("oversize: the token, the header and the claims each have a limit, checked before decoding")
    func oversize() {
        let big = Self.segment(#"{"sub":""# + String(repeating: "a", count: 9_000) + #""}"#)
        #expect(refusal { try CompactJWS("\(Self.header).\(big).\(Self.signature)") } == .tooLarge)
        let bigHeader = Self.segment(#"{"alg":"RS256","x":""# + String(repeating: "a", count: 1_100) + #""}"#)
        #expect(refusal { try CompactJWS("\(bigHeader).\(Self.payload).\(Self.signature)") } == .tooLarge)
        let huge = String(repeating: "a", count: 20_000)
        #expect(refusal { try CompactJWS("\(Self.header).\(huge).x") } == .tooLarge)
        let limits = JWSLimits(maxTokenBytes: 100, maxHeaderBytes: 1_024, maxClaimsBytes: 8_192)
        #expect(refusal { try CompactJWS("\(Self.header).\(Self.payload).\(Self.signature)", limits: limits) } == .tooLarge)
    }

    @Test("headers that are not a JSON object with a string alg, or that name critical extensions", arguments: [
        #"[]"#, #"{}"#, #"{"alg":1}"#, #"{"alg":"RS256","crit":["b64"],"b64":false}"#, #"{"alg":"RS256","kid":5}"#,
        #"{"alg":"RS256","kid":""}"#, #"{"alg":"RS256","alg":"none"}"#, "not json", #"{"alg":"RS256","typ":["JWT"]}"#,
        String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
    ])
    func headers(_ json: String) {
        #expect(refusal { try CompactJWS("\(Self.segment(json)).\(Self.payload).\(Self.signature)") } == .header)
    }

    @Test("algorithms we never accept are refused by name: none, the HMAC family, PS256, ES384, EdDSA", arguments: [
        "none", "None", "HS256", "HS512", "PS256", "RS512", "ES384", "EdDSA", "",
    ])
    func algorithms(_ name: String) {
        let header = Self.segment(#"{"alg":"\#(name)","kid":"rsa-2026"}"#)
        #expect(refusal { try CompactJWS("\(header).\(Self.payload).") } == .algorithm)
        #expect(refusal { try CompactJWS("\(header).\(Self.payload).\(Self.signature)") } == .algorithm)
    }

    @Test("claims that are not one JSON object: an array, a string, repeated members, too deep, not UTF-8", arguments: [
        Data("[1]".utf8), Data(#""sub""#.utf8), Data(#"{"aud":"a","aud":"b"}"#.utf8),
        Data((#"{"a":"# + String(repeating: "[", count: 20) + String(repeating: "]", count: 20) + "}").utf8), Data([0x7B, 0xFF, 0x7D]),
    ])
    func payloads(_ json: Data) {
        #expect(refusal { try CompactJWS("\(Self.header).\(OpenSSLIssuer.base64url(json)).\(Self.signature)") } == .payload)
    }
}
