import Foundation
import Messages
import SQLite
import ZeroMQ

/// Consumes durable streams exactly once, in order, across restarts (the ZeroMQ guide's Clone
/// pattern): subscribe first, apply each event with its cursor in one transaction, detect gaps by
/// sequence and tail loss by heartbeats, and catch up with `replay` from the publisher's outbox.
///
/// Every durable event is also deduped by its id (one ledger for every consumer, in the same
/// transaction as its effect): an event seen again under another seq is not applied twice.
/// A catch-up is a blocking request, so it never runs inside an open transaction: an event that
/// reveals a gap while a group commit is open is held, and `runPendingCatchUps()` fills the gap
/// after that commit.
///
/// Its parts, each owning its state: `FollowerPositions` (cursors and epochs), `EventApplier`
/// (one event with its records), `CatchUp` (replay paging), `SeqCollisions`, `ReplaySources`,
/// `ShedCounter` and `StreamLag`; `FollowerStore` holds all of their SQL.
public final class StreamFollower {
    /// How long an event id is remembered by default: longer than a publisher's default replay window (7 days).
    public static let seenEventRetentionSeconds = 8.0 * 24 * 3600

    /// What applying an event did.
    public enum Outcome: Equatable {
        case applied, duplicate, gap, deadLettered
        /// The storage failed (disk full, I/O): nothing moved; the event comes again by replay.
        case failed
    }

    private let db: Database
    private let logger: Logger
    private let clock: any WallClock
    private let store: FollowerStore
    private let positions: FollowerPositions
    private let applier: EventApplier
    private let sources: ReplaySources
    private let catchUps: CatchUp
    private let collisions: SeqCollisions
    private var shedCounter: ShedCounter
    private var lag = StreamLag()
    /// Streams followed with cursors; events of other streams (sightings) are applied as they come.
    public let durableStreams: Set<String>
    /// Topic prefixes this consumer subscribed to; replayed events outside them only move the cursor.
    public let prefixes: [String]

    /// The CURVE keys to call a publisher's replay endpoint with, by its source name (deployed
    /// mode); nil in plain mode.
    public var replayKeys: (String) throws -> RequestClient.CurveClientKeys? {
        get { sources.keys }
        set { sources.keys = newValue }
    }
    /// Checks what a publisher's replay returns (the stream owner rule); nil applies it unchecked.
    public var origins: EventOrigins? {
        get { sources.origins }
        set { sources.origins = newValue }
    }
    /// Whether the process is stopping: a catch-up checks it between replay pages, so SIGTERM
    /// during the replay of a long backlog waits for one page (at most the 1 s replay timeout),
    /// not for the whole backlog. The cursor keeps what was applied; the restarted process goes on.
    public var shouldStop: () -> Bool {
        get { catchUps.shouldStop }
        set { catchUps.shouldStop = newValue }
    }

    /// The storage failure that stopped the last event, until one applies again.
    public var storageFailure: SQLiteError? { applier.storageFailure }
    /// Best-effort events (sightings) that never arrived, per source: gaps in their numbering.
    public var shed: [String: UInt64] { shedCounter.shed }
    /// Events applied (for health).
    public var appliedCount: Int { applier.appliedCount }
    /// Events not applied because they were applied before (a passed seq, or an id seen before).
    public var duplicateCount: Int { applier.duplicateCount }
    /// Events applied from a publisher's replay (catching up).
    public var replayedCount: Int { catchUps.replayedCount }
    /// Events skipped because their id was applied before (under another seq).
    public var seenAgainCount: Int { applier.seenAgainCount }
    /// Events that came at a seq already passed, under an id never applied (see `SeqCollisions`).
    public var collisionCount: Int { collisions.count }
    /// The publisher's own events applied late because another event had taken their seq.
    public var collisionsRecovered: Int { collisions.recovered }

    /// `sharing` another follower of the same database (a service's second bus consumer) shares
    /// its cursors and publishers' epochs: a publisher that started over resets every cursor of
    /// its streams at once, in memory as in the table, whichever follower heard it first.
    public init(db: Database, logger: Logger, context: Context, durableStreams: Set<String>, prefixes: [String],
                clock: any WallClock = SystemClock(), sharing other: StreamFollower? = nil,
                apply: @escaping (String, Envelope) throws -> Void,
                deadLetter: @escaping (String, Envelope?, Data, Error) -> Void) throws {
        precondition(other.map { $0.db === db } ?? true, "followers share positions only over one database")
        self.db = db
        self.logger = logger
        self.clock = clock
        self.durableStreams = durableStreams
        self.prefixes = prefixes
        store = FollowerStore(db: db)
        try store.migrate()
        positions = try other?.positions ?? FollowerPositions(db: db, store: store, logger: logger)
        shedCounter = ShedCounter(stored: try store.bestEffortPositions())
        applier = EventApplier(db: db, store: store, positions: positions, clock: clock, prefixes: prefixes, apply: apply, deadLetter: deadLetter)
        sources = ReplaySources(context: context, logger: logger)
        catchUps = CatchUp(db: db, store: store, logger: logger, positions: positions, sources: sources, applier: applier)
        collisions = SeqCollisions(db: db, logger: logger, sources: sources, applier: applier)
    }

    /// The last applied sequence number of a publisher's stream.
    public func cursor(source: String, stream: String) -> UInt64 { positions.cursor(StreamKey(source: source, stream: stream)) }

    /// Every cursor of this follower's streams, "source/stream" → seq, for health.
    public var cursorSummary: [String: UInt64] { positions.summary(of: durableStreams) }

    /// Handles one event from the bus.
    @discardableResult
    public func receive(topic: String, envelope: Envelope, raw: Data) -> Outcome {
        if case .heartbeat(let heartbeat) = envelope.body {
            observe(heartbeat, source: envelope.source)
            return .applied
        }
        guard durableStreams.contains(envelope.stream) else {
            shedCounter.count(envelope)
            return applier.applyUnordered(topic: topic, envelope: envelope, raw: raw)
        }
        let current = cursor(source: envelope.source, stream: envelope.stream)
        if envelope.seq <= current {
            // A seq already passed under an id never applied: two events claim one position (a
            // forgery, in plain mode, took it first or comes second). The publisher's outbox decides.
            applier.countDuplicate()
            if collisions.collides(envelope) { collisions.check(topic: topic, envelope: envelope, raw: raw) }
            return .duplicate
        }
        if envelope.seq > current + 1 {
            logger.info("gap in stream, catching up", ["stream": envelope.stream, "source": envelope.source, "cursor": "\(current)", "seq": "\(envelope.seq)"])
            if db.inTransaction {
                catchUps.hold(topic: topic, envelope: envelope, raw: raw)
                return .gap
            }
            catchUp(source: envelope.source, stream: envelope.stream, through: envelope.seq - 1)
            let caughtUp = cursor(source: envelope.source, stream: envelope.stream)
            // The replay may already have carried this very event (it serves up to its limit, not
            // just to the gap): then it was applied there, once.
            if caughtUp >= envelope.seq { return .applied }
            if caughtUp != envelope.seq - 1 { return .gap }
        }
        return applier.applyInOrder(topic: topic, envelope: envelope, raw: raw)
    }

    /// A publisher's heartbeat: remember where it answers replay, catch up any stream we are
    /// behind on (a publisher that started over is followed from its seq 1 again).
    public func observe(_ heartbeat: Heartbeat, source: String) {
        positions.follow(heartbeat, of: source, durableStreams: durableStreams)
        sources.learn(source, endpoint: heartbeat.replayEndpoint)
        // Another shard's streams are neither followed nor counted as behind.
        let followed = heartbeat.streams.filter { durableStreams.contains($0.key) && !Self.otherShard(heartbeat.shard, stream: $0.key, prefixes: prefixes) }
        lag.observe(source, announced: followed, now: Reactor.monotonic()) { positions.cursor($0) }
        for (stream, last) in followed where last > cursor(source: source, stream: stream) {
            catchUps.ask(StreamKey(source: source, stream: stream), through: last)
        }
        collisions.retry(of: source)
    }

    /// Whether a publisher of `shard` publishes `stream` only on topics this consumer does not
    /// subscribe to: every prefix of the stream names a shard (`device.s0.`), none this one. Its
    /// events would only move a cursor, so it is not caught up on (nor counted as behind).
    /// A `shard` that names no shard (not `s<digits>`) is ignored: the stream is followed.
    public static func otherShard(_ shard: String?, stream: String, prefixes: [String]) -> Bool {
        func namesShard(_ part: Substring) -> Bool { part.count > 1 && part.first == "s" && part.dropFirst().allSatisfy { $0.isASCII && $0.isNumber } }
        guard let shard, namesShard(Substring(shard)) else { return false }
        let parts = prefixes.map { $0.split(separator: ".", omittingEmptySubsequences: false) }.filter { $0.first.map(String.init) == stream }
        guard !parts.isEmpty else { return false }
        guard parts.allSatisfy({ $0.count > 1 && namesShard($0[1]) }) else { return false }
        return !parts.contains { $0[1] == Substring(shard) }
    }

    /// Replays `stream` from the publisher until our cursor reaches `through` or the publisher
    /// has nothing more. Failures are logged; the next heartbeat tries again.
    public func catchUp(source: String, stream: String, through target: UInt64) {
        catchUps.run(StreamKey(source: source, stream: stream), through: target)
    }

    /// Whether a catch-up waits for the open transaction to end.
    public var hasPendingCatchUps: Bool { catchUps.hasPending || collisions.hasPending }

    /// Runs the catch-ups asked for inside the last transaction, applies the held events that are
    /// next in their streams, then checks the seq collisions found meanwhile.
    public func runPendingCatchUps() {
        precondition(!db.inTransaction, "a catch-up is a blocking request: never inside an open transaction")
        catchUps.runPending()
        collisions.runPending()
    }

    /// The streams ("source/stream") that have been behind their publisher's heartbeat for longer
    /// than `seconds`: a catch-up that keeps failing.
    public func streamsBehind(longerThan seconds: Double) -> [String] {
        lag.behind(longerThan: seconds, now: Reactor.monotonic())
    }

    /// Health keys for a scraper: `lag.<source/stream>.events` and `.seconds` per followed stream,
    /// and `heartbeat.<source>.ageSeconds` per publisher heard.
    public var lagDetails: [String: String] {
        let now = Reactor.monotonic()
        var details: [String: String] = [:]
        for (key, lag) in lag.lags(now: now, cursor: { positions.cursor($0) }) {
            details["lag.\(key.name).events"] = "\(lag.events)"
            details["lag.\(key.name).seconds"] = String(format: "%.3f", lag.seconds)
        }
        for (source, age) in lag.heartbeatAges(now: now) { details["heartbeat.\(source).ageSeconds"] = String(format: "%.3f", age) }
        return details
    }

    /// Stores where each best-effort stream got to (one row per source and stream, in the caller's
    /// group commit, never one write per sighting), so a restart counts what was shed meanwhile.
    public func storeBestEffortPositions() throws {
        try shedCounter.store(in: store)
    }

    /// How long applied event ids are remembered, and of which streams none are (see `SeenEventLedger`).
    public var ledger: SeenEventLedger {
        get { applier.ledger }
        set { applier.ledger = newValue }
    }

    /// Forgets up to `limit` expired event ids, in one short transaction; returns how many.
    public func pruneSeenEvents(limit: Int) throws -> Int {
        try applier.pruneLedger(limit: limit)
    }

    /// Events a publisher had pruned before this consumer read them (`replay.pruned`), skipped.
    public var lostToPruning: UInt64 { catchUps.lostToPruning }

    /// Closes replay clients on the owning thread.
    public func close() {
        sources.close()
    }
}
