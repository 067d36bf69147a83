/// How large a compact JWS may be, checked before anything is decoded. Real ID tokens are 0.8–4
/// KB (Apple's under 1 KB, Entra ID's with groups up to about 4); an APNs provider token is
/// about 200 bytes.
public struct JWSLimits: Sendable, Equatable {
    /// The whole token's text.
    public var maxTokenBytes: Int
    /// The decoded header JSON.
    public var maxHeaderBytes: Int
    /// The decoded payload (claims) JSON.
    public var maxClaimsBytes: Int

    public init(maxTokenBytes: Int = 16_384, maxHeaderBytes: Int = 1_024, maxClaimsBytes: Int = 8_192) {
        self.maxTokenBytes = maxTokenBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxClaimsBytes = maxClaimsBytes
    }

    /// The defaults.
    public static let standard = JWSLimits()
}
