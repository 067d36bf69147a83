/// `heartbeat` on `heartbeat.<source>.`, every second: the last sequence number of each durable
/// stream this publisher has, and where to ask for a replay. Consumers use it to detect tail loss.
public struct Heartbeat: Codable, Sendable, Equatable {
    public var service: String
    public var streams: [String: UInt64]
    /// The publisher's request endpoint that answers `replay`.
    public var replayEndpoint: String
    /// Random, fixed for the life of the publisher's outbox. A new epoch means the publisher
    /// started over from an empty database (seq 1 again): consumers reset their cursors for it.
    public var epoch: String
    /// The device shard a sharded publisher serves (`s1`): its durable events travel only on that
    /// shard's topics (`device.s1.`), so a consumer of another shard need not catch up on them.
    /// Absent for a publisher of every shard, or of none.
    public var shard: String?
    /// The publisher's time, read just before `streams`: every event written after that read is
    /// stamped no earlier. A consumer whose cursor is past `streams` because it already applied
    /// such an event (a replay fetched it while this heartbeat waited in its queue) knows the
    /// heartbeat is stale, not that the publisher went back. Absent from older publishers.
    public var at: Timestamp?

    public init(service: String, streams: [String: UInt64], replayEndpoint: String, epoch: String = "", shard: String? = nil, at: Timestamp? = nil) {
        self.service = service
        self.streams = streams
        self.replayEndpoint = replayEndpoint
        self.epoch = epoch
        self.shard = shard
        self.at = at
    }

    enum CodingKeys: String, CodingKey { case service, streams, replayEndpoint, epoch, shard, at }

    /// `epoch` came after the first v1 heartbeats: absent means unknown (""), not malformed. Every
    /// stream's last seq lies within `Envelope.seqRange`.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        service = try c.decode(String.self, forKey: .service)
        streams = try c.decode([String: UInt64].self, forKey: .streams, in: Envelope.seqRange)
        replayEndpoint = try c.decode(String.self, forKey: .replayEndpoint)
        epoch = try c.decodeIfPresent(String.self, forKey: .epoch) ?? ""
        shard = try c.decodeIfPresent(String.self, forKey: .shard)
        at = try c.decodeIfPresent(Timestamp.self, forKey: .at)
    }
}

/// `deadletter` on `deadletter.<service>.`: a pub/sub message a service could not use, and why.
public struct DeadLetter: Codable, Sendable, Equatable {
    public var service: String
    /// A stable error code (`message.unknownType`, `message.malformed`, …).
    public var code: String
    public var message: String
    /// The topic frame it arrived on.
    public var topic: String
    /// The start of the offending frame (at most 512 bytes, lossy UTF-8).
    public var excerpt: String

    public init(service: String, code: String, message: String, topic: String, excerpt: String) {
        self.service = service
        self.code = code
        self.message = message
        self.topic = topic
        self.excerpt = excerpt
    }
}
