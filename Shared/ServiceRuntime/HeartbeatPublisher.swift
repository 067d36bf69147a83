import Messages

/// Announces, every second and once at start, this publisher's last seq per durable stream, its
/// epoch and where it answers `replay`: consumers detect tail loss and a publisher that started over.
public final class HeartbeatPublisher {
    private let service: String
    private let replayEndpoint: String
    private let publisher: EventPublisher
    /// The device shard this publisher serves (`s1`), announced so other shards' consumers skip it.
    public var shard: String?

    public init(service: String, replayEndpoint: String, publisher: EventPublisher) {
        self.service = service
        self.replayEndpoint = replayEndpoint
        self.publisher = publisher
    }

    /// Beats every second on the reactor.
    public func attach(to reactor: Reactor) {
        reactor.every(1.0, name: "heartbeat") { [unowned self] in try self.beat() }
    }

    /// Publishes one heartbeat now.
    public func beat() throws {
        let outbox = publisher.outbox
        let heads = try outbox.heads()
        let heartbeat = Heartbeat(service: service, streams: heads.streams, replayEndpoint: replayEndpoint, epoch: outbox.epoch, shard: shard, at: heads.at)
        try publisher.publishBestEffort(.heartbeat, topic: Topic.heartbeat(source: outbox.source), stream: "heartbeat", .heartbeat(heartbeat))
    }
}
