import Foundation
import Messages
import ZeroMQ

/// An XPUB standing in for the bus's, bound where a service under test subscribes: it waits
/// until the service's subscriptions have arrived (nothing published before then is dropped)
/// and publishes as the bus would, without a high-water mark, so a backlog queues whole.
public final class StandInBus {
    public let socket: Socket

    /// Binds to `endpoint` in `context` and waits up to 5 s for a subscription to each prefix;
    /// the prefixes seen are in `subscribed`.
    public init(context: Context, endpoint: String, awaiting prefixes: Set<String>) throws {
        socket = try Socket(context, .xpub)
        try socket.setSendHighWaterMark(0)
        try socket.setLinger(milliseconds: 0)
        try socket.bind(endpoint)
        while !subscribed.isSuperset(of: prefixes), let frames = try socket.receiveMultipart(timeoutMilliseconds: 5_000) {
            if let first = frames.first, first.first == 1 { subscribed.insert(String(decoding: first.dropFirst(), as: UTF8.self)) }
        }
    }

    /// The subscriptions that arrived (a prefix each).
    public private(set) var subscribed: Set<String> = []

    /// Publishes `count` `region.nearest` events of region-monitor's stream (seq 1…count), as
    /// thousands of walking phones make them: 5,000 devices named at one café.
    public func publishNearestBacklog(_ count: UInt64, at now: Timestamp) throws {
        let beacon = BeaconIdentity(uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", major: 1, minor: 1)
        for seq in 1...count {
            let nearest = NearestBeacon(deviceId: "walker-\(seq % 5_000)", beacon: beacon, proximity: .near, date: now)
            let envelope = Envelope(type: .regionNearest, source: "region-monitor", stream: "region", seq: seq, time: now, body: .nearest(nearest))
            try socket.send(multipart: [Data("region.nearest.walker".utf8), Wire.encode(envelope)])
        }
    }

    /// Publishes one envelope on `topic`.
    public func publish(_ envelope: Envelope, topic: String) throws {
        try socket.send(multipart: [Data(topic.utf8), Wire.encode(envelope)])
    }

    public func close() { socket.close() }
}
