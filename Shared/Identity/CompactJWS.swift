/// A compact JWS (RFC 7515 §7.1), `header.payload.signature`, parsed but not yet verified: its
/// header, its claims and the bytes its signature covers. Parsing refuses every wrong shape with
/// a typed error before verification is attempted; nothing in it is to be trusted until
/// `JWSVerifier` has checked the signature.
public struct CompactJWS: Sendable {
    public let header: JOSEHeader
    /// The payload as a JSON object (an ID token's or a provider token's claims).
    public let claims: [String: JSONValue]
    /// The ASCII bytes of `header.payload` as they arrived: what the signature signs.
    public let signingInput: [UInt8]
    /// The decoded signature (for ES256, raw r‖s).
    public let signature: [UInt8]

    /// Parses `token`, checking in this order: its length, three segments, the header (base64url,
    /// size, a JSON object, an algorithm we accept), the payload (the same), the signature's base64url.
    public init(_ token: String, limits: JWSLimits = .standard) throws(IdentityError) {
        let bytes = Array(token.utf8)
        guard bytes.count <= limits.maxTokenBytes else {
            throw IdentityError(.tooLarge, "the token is \(bytes.count) bytes; at most \(limits.maxTokenBytes) are read")
        }
        let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
        guard dots.count == 2 else {
            throw IdentityError(.segments, "a compact JWS has 3 segments; this token has \(dots.count + 1)")
        }
        let headerText = bytes[..<dots[0]], payloadText = bytes[(dots[0] + 1)..<dots[1]], signatureText = bytes[(dots[1] + 1)...]

        self.header = try JOSEHeader(Self.object(headerText, part: "header", limit: limits.maxHeaderBytes, malformed: .header))
        self.claims = try Self.object(payloadText, part: "payload", limit: limits.maxClaimsBytes, malformed: .payload)
        guard let signature = Base64URL.decode(signatureText) else {
            throw IdentityError(.base64, "the signature is not unpadded base64url")
        }
        self.signature = signature
        self.signingInput = Array(bytes[..<dots[1]])
    }

    /// One JSON segment: its size bounded before and after decoding, then read as an object.
    private static func object(_ text: ArraySlice<UInt8>, part: String, limit: Int, malformed: IdentityError.Code) throws(IdentityError) -> [String: JSONValue] {
        // Base64url spends 4 characters on 3 bytes: a longer text cannot decode under the limit.
        guard text.count <= (limit * 4 + 2) / 3 else {
            throw IdentityError(.tooLarge, "the \(part) is over \(limit) bytes")
        }
        guard let json = Base64URL.decode(text) else {
            throw IdentityError(.base64, "the \(part) is not unpadded base64url")
        }
        guard let object = JSONValue.object(json) else {
            throw IdentityError(malformed, "the \(part) is not a JSON object (or nests over \(JSONValue.maxDepth) levels, or repeats a member)")
        }
        return object
    }
}
