import Foundation
import Messages
import SQLite
import ZeroMQ

/// A service's subscription to the bus: the SUB socket, the stream follower that applies durable
/// streams exactly once, group commit, and dead letters for what cannot be used.
///
/// What arrives together is applied in one transaction (group commit): a burst costs one commit,
/// not one per event. Each event still gets its own savepoint, so one that fails is rolled back
/// and dead-lettered alone. A batch ends after 2 ms, so no event waits longer than that for the
/// commit that announces it; it also ends at a gap, whose catch-up runs after the commit.
public final class BusConsumer {
    public let follower: StreamFollower
    private let socket: Socket
    private let db: Database
    private let publisher: EventPublisher
    private let deadLetters: DeadLetters
    private let maxMessageBytes: Int
    private var observers: [(Envelope) -> Void] = []

    /// Subscribes to `prefixes` (and every heartbeat) on the bus's XPUB endpoint.
    public init(context: Context, busEndpoint: String, prefixes: [String], durableStreams: Set<String>, db: Database,
                publisher: EventPublisher, deadLetters: DeadLetters, clock: any WallClock, logger: Logger, maxMessageBytes: Int,
                handler: @escaping (String, Envelope) throws -> Void) throws {
        self.db = db
        self.publisher = publisher
        self.deadLetters = deadLetters
        self.maxMessageBytes = maxMessageBytes
        socket = try Socket(context, .sub)
        try socket.setReceiveHighWaterMark(200_000)
        try socket.setLinger(milliseconds: 0)
        try socket.setMaxMessageSize(bytes: Int64(maxMessageBytes) * 2)
        try socket.setReconnectInterval(milliseconds: 100, maxMilliseconds: 2_000)
        for prefix in prefixes { try socket.subscribe(prefix) }
        try socket.subscribe("heartbeat.")
        try socket.connect(busEndpoint)
        follower = try StreamFollower(
            db: db, logger: logger, context: context, durableStreams: durableStreams, prefixes: prefixes, clock: clock,
            apply: handler,
            deadLetter: { topic, _, raw, error in deadLetters.send(topic: topic, raw: raw, error: error) })
    }

    /// Drains the socket whenever it is readable, and forgets old event ids hourly.
    public func attach(to reactor: Reactor) {
        reactor.onReadable(socket) { [unowned self] in try self.drain() }
        reactor.every(3600, name: "consumer.prune") { [unowned self] in try self.follower.pruneSeenEvents() }
    }

    /// Calls `observer` with every message the subscription receives (heartbeats included, this
    /// service's own among them), after the stream follower has seen it.
    public func onMessage(_ observer: @escaping (Envelope) -> Void) {
        observers.append(observer)
    }

    /// Health keys: cursors, replayed and duplicate counts.
    public var healthDetails: [String: String] {
        var details: [String: String] = [:]
        for (key, seq) in follower.cursorSummary { details["cursor.\(key)"] = "\(seq)" }
        details["replayed"] = "\(follower.replayedCount)"
        details["duplicates"] = "\(follower.duplicateCount)"
        details["events.deduplicated"] = "\(follower.seenAgainCount)"
        return details
    }

    private func drain() throws {
        var more = true
        for _ in 0..<64 where more {
            more = try db.transaction { try drainBatch(until: Reactor.monotonic() + 0.002) }
            publisher.flush()
            if follower.hasPendingCatchUps {
                follower.runPendingCatchUps()
                publisher.flush()
                more = true
            }
        }
    }

    /// Applies queued messages until the queue is empty (false), the deadline passes or a gap
    /// needs a catch-up (true).
    private func drainBatch(until deadline: Double) throws -> Bool {
        var count = 0
        while true {
            count += 1
            if count % 16 == 0, Reactor.monotonic() > deadline { return true }
            guard let frames = try socket.tryReceiveMultipart() else { return false }
            guard frames.count == 2 else {
                deadLetters.send(topic: frames.first.map { String(decoding: $0, as: UTF8.self) } ?? "", raw: frames.last ?? Data(),
                                 error: WireError(.messageMalformed, "expected 2 frames [topic][envelope], got \(frames.count)"))
                continue
            }
            let topic = String(decoding: frames[0], as: UTF8.self)
            do {
                let envelope = try Wire.decodeEnvelope(frames[1], maxBytes: maxMessageBytes)
                follower.receive(topic: topic, envelope: envelope, raw: frames[1])
                for observer in observers { observer(envelope) }
            } catch {
                deadLetters.send(topic: topic, raw: frames[1], error: error)
            }
            if follower.hasPendingCatchUps { return true }
        }
    }

    /// Closes replay clients and the socket, on the owning thread.
    public func close() {
        follower.close()
        socket.close()
    }
}
