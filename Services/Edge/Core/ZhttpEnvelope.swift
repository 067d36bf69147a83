import Foundation

/// One message as the edge's ROUTER receives it from Pushpin's DEALER: the routing frames
/// (the DEALER's identity, which the ROUTER prepends), the empty delimiter the DEALER sends, and
/// the zmq-http frame. The answer goes back with the same routing frames and delimiter.
public struct ZhttpEnvelope: Sendable, Equatable {
    /// The frames before the delimiter, returned unchanged with the answer.
    public var routing: [Data]
    /// `T` and the tnetstring.
    public var frame: Data

    /// Routing frames a message may carry: Pushpin's DEALER adds none, so one from the ROUTER is
    /// the norm; a few allow a broker in between.
    public static let maxRoutingFrames = 4

    /// A message with its routing frames and zmq-http frame.
    public init(routing: [Data], frame: Data) {
        self.routing = routing
        self.frame = frame
    }

    /// Splits a received message at its empty delimiter; nil when it has none, no routing frame,
    /// too many, or more than one frame after it (such a message cannot be answered: dropped).
    public init?(frames: [Data]) {
        guard let delimiter = frames.firstIndex(where: \.isEmpty), delimiter >= 1, delimiter <= Self.maxRoutingFrames,
              frames.count == delimiter + 2 else { return nil }
        routing = Array(frames[..<delimiter])
        frame = frames[delimiter + 1]
    }

    /// The frames to send back for `response`: the routing frames, the delimiter, the answer.
    public func reply(_ response: ZhttpResponse) -> [Data] {
        routing + [Data(), response.frame]
    }
}
