/// What the edge reads of one zmq-http request. Pushpin's own limits come first (its
/// connection manager refuses larger header blocks and, in req mode, bodies over 1 MB); these
/// are the edge's, each answered with its own status so a client learns which it passed.
public struct ZhttpLimits: Sendable, Equatable {
    /// Pushpin's request id (it names the connection; Pushpin's own are a few dozen bytes).
    public var maxIdBytes = 256
    public var maxMethodBytes = 16
    /// Longer: 414.
    public var maxURIBytes = 8_192
    /// More fields, a longer name or value, or more bytes in all: 431.
    public var maxHeaderCount = 64
    public var maxHeaderNameBytes = 256
    public var maxHeaderValueBytes = 8_192
    public var maxHeaderBytes = 32_768
    /// Larger: 413, before the JSON is read.
    public var maxBodyBytes = 65_536
    /// The tnetstring's own bounds (the whole frame, depth, element count, string length).
    public var tnetstring = TNetStringLimits.zhttp

    /// The standard limits.
    public init() {}

    /// The limits the edge runs with.
    public static let standard = ZhttpLimits()
}
