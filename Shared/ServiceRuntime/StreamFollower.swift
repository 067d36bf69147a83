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
public final class StreamFollower {
    public static let migrations = [
        Migration(1, """
            CREATE TABLE consumer_cursors (
                source TEXT NOT NULL,
                stream TEXT NOT NULL,
                seq INTEGER NOT NULL,
                PRIMARY KEY (source, stream)
            ) WITHOUT ROWID;
            """),
        Migration(2, "CREATE TABLE consumer_epochs (source TEXT PRIMARY KEY, epoch TEXT NOT NULL) WITHOUT ROWID;"),
        Migration(3, "CREATE TABLE consumer_seen_events (event_id TEXT PRIMARY KEY, at_ms INTEGER NOT NULL) WITHOUT ROWID;"),
        // Where each best-effort stream was, so what was shed while this consumer was down counts too.
        Migration(4, "CREATE TABLE consumer_best_effort (source TEXT NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (source, stream)) WITHOUT ROWID;"),
    ]

    /// How long an event id is remembered: longer than any publisher keeps its outbox (7 days).
    public static let seenEventRetentionSeconds = 8.0 * 24 * 3600

    /// What applying an event did.
    public enum Outcome: Equatable {
        case applied, duplicate, gap, deadLettered
        /// The storage failed (disk full, I/O): nothing moved; the event comes again by replay.
        case failed
    }

    let db: Database
    let logger: Logger
    let context: Context
    /// Streams followed with cursors; events of other streams (sightings) are applied as they come.
    public let durableStreams: Set<String>
    /// Topic prefixes this consumer subscribed to; replayed events outside them only move the cursor.
    public let prefixes: [String]
    var cursors: [String: UInt64] = [:]
    var endpoints: [String: String] = [:]
    var epochs: [String: String] = [:]
    var clients: [String: RequestClient] = [:]
    /// The CURVE keys to call a publisher's replay endpoint with, by its source name (deployed
    /// mode); nil in plain mode.
    public var replayKeys: (String) throws -> RequestClient.CurveClientKeys? = { _ in nil }
    /// Checks what a publisher's replay returns (the stream owner rule); nil applies it unchecked.
    public var origins: EventOrigins?
    /// Whether the process is stopping: a catch-up checks it between replay pages, so SIGTERM
    /// during the replay of a long backlog waits for one page (at most the 1 s replay timeout),
    /// not for the whole backlog. The cursor keeps what was applied; the restarted process goes on.
    public var shouldStop: () -> Bool = { false }
    let apply: (String, Envelope) throws -> Void
    let deadLetter: (String, Envelope?, Data, Error) -> Void
    let clock: any WallClock
    /// How to undo what open transaction levels changed in memory (cursors, epochs), and where
    /// each level began: memory moves only with the commit that stores it.
    var undo: [() -> Void] = []
    var undoMarks: [Int] = []
    /// The storage failure that stopped the last event, until one applies again.
    public internal(set) var storageFailure: SQLiteError?
    /// Best-effort events (sightings) that never arrived, per source: gaps in their numbering.
    public internal(set) var shed: [String: UInt64] = [:]
    var bestEffortLast: [String: UInt64] = [:]
    var bestEffortChanged: Set<String> = []
    /// Since when each followed stream has been behind what its publisher announced.
    var behindSince: [String: Double] = [:]
    /// Catch-ups asked for while a transaction was open, and the events that revealed them.
    var pendingCatchUps: [(source: String, stream: String, through: UInt64)] = []
    var held: [(topic: String, envelope: Envelope, raw: Data)] = []
    /// Seq collisions found while a transaction was open, to check against the publisher's outbox after it.
    var pendingCollisions: [(topic: String, envelope: Envelope, raw: Data)] = []
    /// Seq collisions that could not be checked yet (no replay endpoint known, the publisher away).
    var unsettledCollisions: [(topic: String, envelope: Envelope, raw: Data)] = []

    /// Counters for health.
    public internal(set) var appliedCount = 0
    public internal(set) var duplicateCount = 0
    public internal(set) var replayedCount = 0
    /// Events skipped because their id was applied before (under another seq).
    public private(set) var seenAgainCount = 0
    /// Events that came at a seq already passed, under an id never applied (see `collision`).
    public internal(set) var collisionCount = 0
    /// The publisher's own events applied late because another event had taken their seq.
    public internal(set) var collisionsRecovered = 0

    public init(db: Database, logger: Logger, context: Context, durableStreams: Set<String>, prefixes: [String],
                clock: any WallClock = SystemClock(),
                apply: @escaping (String, Envelope) throws -> Void,
                deadLetter: @escaping (String, Envelope?, Data, Error) -> Void) throws {
        self.db = db
        self.clock = clock
        self.logger = logger
        self.context = context
        self.durableStreams = durableStreams
        self.prefixes = prefixes
        self.apply = apply
        self.deadLetter = deadLetter
        try db.migrate("consumer", Self.migrations)
        for row in try db.query("SELECT source, stream, seq FROM consumer_cursors") {
            cursors[key(row.string("source"), row.string("stream"))] = UInt64(row.int64("seq"))
        }
        for row in try db.query("SELECT source, epoch FROM consumer_epochs") {
            epochs[row.string("source")] = row.string("epoch")
        }
        for row in try db.query("SELECT source, stream, seq FROM consumer_best_effort") {
            bestEffortLast[key(row.string("source"), row.string("stream"))] = UInt64(clamping: row.int64("seq"))
        }
        db.addTransactionObserver(self)
    }

    /// Moves a cursor in memory, undone if the transaction that stored it rolls back.
    func setCursor(_ k: String, _ seq: UInt64?) {
        if db.inTransaction {
            let old = cursors[k]
            undo.append { [unowned self] in self.cursors[k] = old }
        }
        cursors[k] = seq
    }

    func key(_ source: String, _ stream: String) -> String { source + "\u{1}" + stream }

    /// The last applied sequence number of a publisher's stream.
    public func cursor(source: String, stream: String) -> UInt64 { cursors[key(source, stream)] ?? 0 }

    /// Every cursor, "source/stream" → seq, for health.
    public var cursorSummary: [String: UInt64] {
        Dictionary(uniqueKeysWithValues: cursors.map { ($0.key.replacingOccurrences(of: "\u{1}", with: "/"), $0.value) })
    }

    /// Handles one event from the bus.
    @discardableResult
    public func receive(topic: String, envelope: Envelope, raw: Data) -> Outcome {
        if case .heartbeat(let heartbeat) = envelope.body {
            observe(heartbeat, source: envelope.source)
            return .applied
        }
        guard durableStreams.contains(envelope.stream) else {
            countShed(envelope)
            do {
                // Its own savepoint: a handler that fails halfway leaves nothing behind.
                try db.transaction { try apply(topic, envelope) }
                appliedCount += 1
                return .applied
            } catch let error as SQLiteError where error.isStorageFailure {
                storageFailure = error
                return .failed
            } catch {
                deadLetter(topic, envelope, raw, error)
                return .deadLettered
            }
        }
        let current = cursor(source: envelope.source, stream: envelope.stream)
        if envelope.seq <= current {
            // A seq already passed under an id never applied: two events claim one position (a
            // forgery, in plain mode, took it first or comes second). The publisher's outbox decides.
            if collides(envelope) { return collision(topic: topic, envelope: envelope, raw: raw) }
            duplicateCount += 1
            return .duplicate
        }
        if envelope.seq > current + 1 {
            logger.info("gap in stream, catching up", ["stream": envelope.stream, "source": envelope.source, "cursor": "\(current)", "seq": "\(envelope.seq)"])
            if db.inTransaction {
                schedule(source: envelope.source, stream: envelope.stream, through: envelope.seq - 1)
                held.append((topic, envelope, raw))
                return .gap
            }
            catchUp(source: envelope.source, stream: envelope.stream, through: envelope.seq - 1)
            let caughtUp = cursor(source: envelope.source, stream: envelope.stream)
            // The replay may already have carried this very event (it serves up to its limit, not
            // just to the gap): then it was applied there, once.
            if caughtUp >= envelope.seq { return .applied }
            if caughtUp != envelope.seq - 1 { return .gap }
        }
        return applyInOrder(topic: topic, envelope: envelope, raw: raw)
    }

    func applyInOrder(topic: String, envelope: Envelope, raw: @autoclosure () -> Data) -> Outcome {
        let k = key(envelope.source, envelope.stream)
        do {
            let fresh = try db.transaction {
                // Seen before under another seq (a publisher that sent it again): the cursor moves, nothing is applied twice.
                let fresh = try markSeen(envelope.id)
                if fresh, wanted(topic) { try apply(topic, envelope) }
                try storeCursor(envelope.source, envelope.stream, envelope.seq)
                return fresh
            }
            setCursor(k, envelope.seq)
            storageFailure = nil
            if fresh { appliedCount += 1 } else { duplicateCount += 1; seenAgainCount += 1 }
            return fresh ? .applied : .duplicate
        } catch let error as SQLiteError where error.isStorageFailure {
            // Not the event's fault: nothing moves, and it is applied when the storage works again.
            storageFailure = error
            return .failed
        } catch {
            // A poison event must not block the stream forever: dead-letter it and move on. Its id is
            // remembered, so the event coming again is a plain duplicate, not a collision.
            deadLetter(topic, envelope, raw(), error)
            do {
                try db.transaction {
                    try markSeen(envelope.id)
                    try storeCursor(envelope.source, envelope.stream, envelope.seq)
                }
            } catch let error as SQLiteError where error.isStorageFailure {
                storageFailure = error
                return .failed
            } catch {
                return .failed
            }
            setCursor(k, envelope.seq)
            return .deadLettered
        }
    }

    /// Records an event id as applied; false when it was already.
    @discardableResult
    func markSeen(_ id: String) throws -> Bool {
        try db.run("INSERT INTO consumer_seen_events (event_id, at_ms) VALUES (?, ?) ON CONFLICT(event_id) DO NOTHING", id, clock.now().milliseconds)
        return db.changes > 0
    }

    func storeCursor(_ source: String, _ stream: String, _ seq: UInt64) throws {
        try db.run("INSERT INTO consumer_cursors (source, stream, seq) VALUES (?, ?, ?) ON CONFLICT(source, stream) DO UPDATE SET seq = excluded.seq", source, stream, seq)
    }

    func wanted(_ topic: String) -> Bool { prefixes.contains { topic.hasPrefix($0) } }

    /// Forgets event ids older than the retention, in one short transaction.
    public func pruneSeenEvents() throws {
        let cutoff = clock.now().adding(seconds: -Self.seenEventRetentionSeconds).milliseconds
        try db.transaction { try db.run("DELETE FROM consumer_seen_events WHERE at_ms < ?", cutoff) }
    }

    /// Closes replay clients on the owning thread.
    public func close() {
        for client in clients.values { client.close() }
        clients.removeAll()
    }
}
