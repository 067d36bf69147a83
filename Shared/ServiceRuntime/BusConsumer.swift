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
/// (Since issue 15 a batch is one `Reactor.timeSlice`, 1 ms, and the consumer yields after it.)
public final class BusConsumer {
    public let follower: StreamFollower
    private let socket: Socket
    private let db: Database
    private let publisher: EventPublisher
    private let deadLetters: DeadLetters
    private let maxMessageBytes: Int
    /// Whose events may be applied: the stream owner rule, in the mode's terms.
    private let origins: EventOrigins
    /// Events refused because their source may not publish their stream (dead-lettered).
    public private(set) var refusedEvents = 0
    private var observers: [(Envelope) -> Void] = []
    private let logger: Logger
    /// After a batch the storage could not take: no event is applied before `retryAt`, and the
    /// wait doubles (0.25 s … 5 s) until a batch commits. What arrives meanwhile is dropped here
    /// and replayed from its publisher's outbox once a write works again.
    private var retryAt: Double?
    private var backoff = BusConsumer.firstBackoff
    static let firstBackoff = 0.25, maxBackoff = 5.0
    /// Called after a batch the storage could not take was rolled back: a service that keeps state
    /// in memory beside its database (region-monitor's engine) reloads it from what committed.
    public var onRolledBack: (() -> Void)?
    /// Messages dropped while waiting to retry (durable ones come again by replay).
    public private(set) var droppedWhileRetrying = 0

    /// Subscribes to `prefixes` (and every heartbeat) on the bus's XPUB endpoint; `sharing` the
    /// service's first consumer, its follower shares that one's cursors (see `StreamFollower`).
    public init(context: Context, busEndpoint: String, prefixes: [String], durableStreams: Set<String>, db: Database,
                publisher: EventPublisher, deadLetters: DeadLetters, clock: any WallClock, security: SocketSecurity, logger: Logger, maxMessageBytes: Int,
                sharing other: BusConsumer? = nil, handler: @escaping (String, Envelope) throws -> Void) throws {
        self.db = db
        self.publisher = publisher
        self.deadLetters = deadLetters
        self.maxMessageBytes = maxMessageBytes
        self.logger = logger
        origins = EventOrigins(security: security)
        socket = try Socket(context, .sub)
        try socket.setReceiveHighWaterMark(200_000)
        try socket.setLinger(milliseconds: 0)
        try socket.setMaxMessageSize(bytes: Int64(maxMessageBytes) * 2)
        try socket.setReconnectInterval(milliseconds: 100, maxMilliseconds: 2_000)
        for prefix in prefixes { try socket.subscribe(prefix) }
        try socket.subscribe("heartbeat.")
        let (server, endpoint) = PeerEndpoint.split(busEndpoint, defaultName: "bus")
        try security.secureClient(socket, server: server)
        try socket.connect(endpoint)
        follower = try StreamFollower(
            db: db, logger: logger, context: context, durableStreams: durableStreams, prefixes: prefixes, clock: clock,
            sharing: other?.follower, apply: handler,
            deadLetter: { topic, _, raw, error in deadLetters.send(topic: topic, raw: raw, error: error) })
        follower.replayKeys = { source in try security.clientKeys(server: source) }
        follower.origins = origins
    }

    /// Drains the socket whenever it is readable; `pruner` forgets expired event ids (the ledger
    /// is one table for every consumer of the database: one of them prunes it).
    public func attach(to reactor: Reactor, pruner: Pruner?) {
        reactor.onReadable(socket) { [unowned self] in try self.drain() }
        follower.shouldStop = { [unowned reactor] in reactor.isStopping }
        pruner?.add("seenEvents") { [unowned self] limit in try self.follower.pruneSeenEvents(limit: limit) }
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
        details.merge(follower.lagDetails) { _, new in new }
        details["events.applied"] = "\(follower.appliedCount)"
        details["replayed"] = "\(follower.replayedCount)"
        details["duplicates"] = "\(follower.duplicateCount)"
        details["events.deduplicated"] = "\(follower.seenAgainCount)"
        details["events.refused"] = "\(refusedEvents)"
        details["events.seqCollisions"] = "\(follower.collisionCount)"
        details["events.seqCollisionsRecovered"] = "\(follower.collisionsRecovered)"
        details["events.lostToPruning"] = "\(follower.lostToPruning)"
        for (source, count) in follower.shed { details["shed.\(source)"] = "\(count)" }
        if droppedWhileRetrying > 0 { details["consumer.droppedWhileRetrying"] = "\(droppedWhileRetrying)" }
        return details
    }

    /// Why this consumer is not keeping up: retrying after a storage failure, or a stream behind
    /// its publisher for more than 10 s (a catch-up that keeps failing).
    public var degradedReasons: [String] {
        var reasons: [String] = []
        if retryAt != nil { reasons.append("consumer.retrying") }
        if !follower.streamsBehind(longerThan: 10).isEmpty { reasons.append("consumer.behind") }
        return reasons
    }

    /// Applies what is queued on the socket now, one time slice of it, outside the reactor's turn
    /// for it: a request that names something an event waiting here creates (a chef bumping a
    /// ticket whose `order.placed` arrived with the bump) sees it, instead of being refused and
    /// asked again. Nothing while a transaction is open: a request that writes calls this first.
    public func applyQueued() throws {
        guard !db.inTransaction else { return }
        try drain()
    }

    private func drain() throws {
        if let retryAt {
            guard Reactor.monotonic() >= retryAt else { return dropWhileRetrying() }
        }
        // One time slice per turn (a batch, its commit and any catch-up); what is still queued
        // makes the socket readable again, after the loop's other sockets and timers had a turn.
        let start = Reactor.monotonic()
        var more = true
        while more, Reactor.monotonic() - start < Reactor.timeSlice {
            do {
                more = try db.transaction {
                    let more = try drainBatch(until: start + Reactor.timeSlice)
                    try follower.storeBestEffortPositions()
                    return more
                }
            } catch let error as SQLiteError where error.isStorageFailure {
                // The batch rolled back, cursors with it: its events come again by replay.
                return failed(error)
            }
            publisher.flush()
            if follower.hasPendingCatchUps {
                follower.runPendingCatchUps()
                publisher.flush()
                if let error = follower.storageFailure { return failed(error) }
                more = true
            }
            recovered()
        }
    }

    private func failed(_ error: SQLiteError) {
        onRolledBack?()
        if retryAt == nil { logger.error("storage failed; consumed events will be replayed", ["error": "\(error)"]) }
        retryAt = Reactor.monotonic() + backoff
        backoff = min(backoff * 2, Self.maxBackoff)
    }

    private func recovered() {
        guard retryAt != nil else { return }
        retryAt = nil
        backoff = Self.firstBackoff
        logger.info("storage works again; consuming")
    }

    /// Empties the queue without applying (the reactor would otherwise wake for it at once).
    private func dropWhileRetrying() {
        while let frames = try? socket.tryReceiveMultipart() { _ = frames; droppedWhileRetrying += 1 }
    }

    /// Applies queued messages until the queue is empty (false), the deadline passes or a gap
    /// needs a catch-up (true).
    private func drainBatch(until deadline: Double) throws -> Bool {
        while true {
            // Every message: one can be a batch of 256 sightings.
            if Reactor.monotonic() > deadline { return true }
            guard let frames = try socket.tryReceiveMultipart() else { return false }
            guard frames.count == 2 else {
                deadLetters.send(topic: frames.first.map { String(decoding: $0, as: UTF8.self) } ?? "", raw: frames.last ?? Data(),
                                 error: WireError(.messageMalformed, "expected 2 frames [topic][envelope], got \(frames.count)"))
                continue
            }
            let topic = String(decoding: frames[0], as: UTF8.self)
            let decoded: Envelope
            do {
                decoded = try Wire.decodeEnvelope(frames[1], maxBytes: maxMessageBytes)
            } catch {
                deadLetters.send(topic: topic, raw: frames[1], error: error)
                continue
            }
            // Only from the publisher its stream belongs to: refused, it is never applied, moves
            // no cursor, registers no replay endpoint and reaches no observer.
            let envelope: Envelope
            switch origins.screen(topic: topic, envelope: decoded) {
            case .admit(let admitted): envelope = admitted
            case .refuse(let error):
                refusedEvents += 1
                deadLetters.send(topic: topic, raw: frames[1], error: error)
                continue
            }
            if follower.receive(topic: topic, envelope: envelope, raw: frames[1]) == .failed {
                throw follower.storageFailure ?? SQLiteError(code: 10, message: "storage failed", context: "consume")
            }
            for observer in observers { observer(envelope) }
            if follower.hasPendingCatchUps { return true }
        }
    }

    /// Closes replay clients and the socket, on the owning thread.
    public func close() {
        follower.close()
        socket.close()
    }
}
