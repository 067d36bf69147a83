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
    ]

    /// How long an event id is remembered: longer than any publisher keeps its outbox (7 days).
    public static let seenEventRetentionSeconds = 8.0 * 24 * 3600

    /// What applying an event did.
    public enum Outcome: Equatable {
        case applied, duplicate, gap, deadLettered
        /// The storage failed (disk full, I/O): nothing moved; the event comes again by replay.
        case failed
    }

    private let db: Database
    private let logger: Logger
    private let context: Context
    /// Streams followed with cursors; events of other streams (sightings) are applied as they come.
    public let durableStreams: Set<String>
    /// Topic prefixes this consumer subscribed to; replayed events outside them only move the cursor.
    public let prefixes: [String]
    private var cursors: [String: UInt64] = [:]
    private var endpoints: [String: String] = [:]
    private var epochs: [String: String] = [:]
    private var clients: [String: RequestClient] = [:]
    private let apply: (String, Envelope) throws -> Void
    private let deadLetter: (String, Envelope?, Data, Error) -> Void
    private let clock: any WallClock
    /// How to undo what open transaction levels changed in memory (cursors, epochs), and where
    /// each level began: memory moves only with the commit that stores it.
    private var undo: [() -> Void] = []
    private var undoMarks: [Int] = []
    /// The storage failure that stopped the last event, until one applies again.
    public private(set) var storageFailure: SQLiteError?
    /// Best-effort events (sightings) that never arrived, per source: gaps in their numbering.
    public private(set) var shed: [String: UInt64] = [:]
    private var bestEffortLast: [String: UInt64] = [:]
    /// Since when each followed stream has been behind what its publisher announced.
    private var behindSince: [String: Double] = [:]
    /// Catch-ups asked for while a transaction was open, and the events that revealed them.
    private var pendingCatchUps: [(source: String, stream: String, through: UInt64)] = []
    private var held: [(topic: String, envelope: Envelope, raw: Data)] = []

    /// Counters for health.
    public private(set) var appliedCount = 0
    public private(set) var duplicateCount = 0
    public private(set) var replayedCount = 0
    /// Events skipped because their id was applied before (under another seq).
    public private(set) var seenAgainCount = 0

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
        db.addTransactionObserver(self)
    }

    /// Moves a cursor in memory, undone if the transaction that stored it rolls back.
    private func setCursor(_ k: String, _ seq: UInt64?) {
        if db.inTransaction {
            let old = cursors[k]
            undo.append { [unowned self] in self.cursors[k] = old }
        }
        cursors[k] = seq
    }

    private func key(_ source: String, _ stream: String) -> String { source + "\u{1}" + stream }

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

    private func applyInOrder(topic: String, envelope: Envelope, raw: @autoclosure () -> Data) -> Outcome {
        let k = key(envelope.source, envelope.stream)
        do {
            let fresh = try db.transaction {
                // Seen before under another seq (a publisher that sent it again): the cursor moves, nothing is applied twice.
                try db.run("INSERT INTO consumer_seen_events (event_id, at_ms) VALUES (?, ?) ON CONFLICT(event_id) DO NOTHING",
                           envelope.id, clock.now().milliseconds)
                let fresh = db.changes > 0
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
            // A poison event must not block the stream forever: dead-letter it and move on.
            deadLetter(topic, envelope, raw(), error)
            do {
                try db.transaction { try storeCursor(envelope.source, envelope.stream, envelope.seq) }
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

    private func storeCursor(_ source: String, _ stream: String, _ seq: UInt64) throws {
        try db.run("INSERT INTO consumer_cursors (source, stream, seq) VALUES (?, ?, ?) ON CONFLICT(source, stream) DO UPDATE SET seq = excluded.seq", source, stream, seq)
    }

    private func wanted(_ topic: String) -> Bool { prefixes.contains { topic.hasPrefix($0) } }

    /// A publisher's heartbeat: remember where it answers replay, catch up any stream we are behind on.
    public func observe(_ heartbeat: Heartbeat, source: String) {
        // Started over: a new epoch, or a last seq below what we already applied (which only a
        // publisher that lost its history can announce; this catches it even when we never
        // heard the old epoch).
        let newEpoch = !heartbeat.epoch.isEmpty && epochs[source] != nil && epochs[source] != heartbeat.epoch
        let wentBack = durableStreams.contains { cursor(source: source, stream: $0) > (heartbeat.streams[$0] ?? 0) }
        if newEpoch || wentBack || (epochs[source] == nil && !heartbeat.epoch.isEmpty) {
            adopt(epoch: heartbeat.epoch, of: source, reset: newEpoch || wentBack)
        }
        if endpoints[source] != heartbeat.replayEndpoint {
            endpoints[source] = heartbeat.replayEndpoint
            clients[source]?.close()
            clients[source] = nil
        }
        let now = Reactor.monotonic()
        for (stream, last) in heartbeat.streams where durableStreams.contains(stream) {
            let k = key(source, stream)
            if last > cursor(source: source, stream: stream) {
                if behindSince[k] == nil { behindSince[k] = now }
            } else {
                behindSince[k] = nil
            }
        }
        for (stream, last) in heartbeat.streams where durableStreams.contains(stream) && last > cursor(source: source, stream: stream) {
            if db.inTransaction {
                schedule(source: source, stream: stream, through: last)
            } else {
                catchUp(source: source, stream: stream, through: last)
            }
        }
    }

    /// The streams ("source/stream") that have been behind their publisher's heartbeat for longer
    /// than `seconds`: a catch-up that keeps failing.
    public func streamsBehind(longerThan seconds: Double) -> [String] {
        let now = Reactor.monotonic()
        return behindSince.filter { now - $0.value > seconds }
            .map { $0.key.replacingOccurrences(of: "\u{1}", with: "/") }.sorted()
    }

    /// Counts the best-effort events that did not arrive: their numbers go up by one per
    /// publisher and stream, and start again at 1 when the publisher restarts.
    private func countShed(_ envelope: Envelope) {
        let k = key(envelope.source, envelope.stream)
        if let last = bestEffortLast[k], envelope.seq > last + 1 {
            // Saturating: a publisher on the bus chooses its numbers, and a sum must not trap.
            let (sum, overflow) = shed[envelope.source, default: 0].addingReportingOverflow(envelope.seq - last - 1)
            shed[envelope.source] = overflow ? .max : sum
        }
        bestEffortLast[k] = envelope.seq
    }

    /// Whether a catch-up waits for the open transaction to end.
    public var hasPendingCatchUps: Bool { !pendingCatchUps.isEmpty }

    private func schedule(source: String, stream: String, through: UInt64) {
        if let index = pendingCatchUps.firstIndex(where: { $0.source == source && $0.stream == stream }) {
            pendingCatchUps[index].through = max(pendingCatchUps[index].through, through)
        } else {
            pendingCatchUps.append((source, stream, through))
        }
    }

    /// Runs the catch-ups asked for inside the last transaction, then applies the held events that
    /// are next in their streams. One that still does not fit is dropped: the gap stays, and the
    /// publisher's next heartbeat asks for it again.
    public func runPendingCatchUps() {
        precondition(!db.inTransaction, "a catch-up is a blocking request: never inside an open transaction")
        let catchUps = pendingCatchUps, events = held
        pendingCatchUps.removeAll()
        held.removeAll()
        for request in catchUps { catchUp(source: request.source, stream: request.stream, through: request.through) }
        for event in events {
            let current = cursor(source: event.envelope.source, stream: event.envelope.stream)
            if event.envelope.seq <= current {
                continue
            } else if event.envelope.seq == current + 1 {
                _ = applyInOrder(topic: event.topic, envelope: event.envelope, raw: event.raw)
            }
        }
    }

    /// Forgets event ids older than the retention, in one short transaction.
    public func pruneSeenEvents() throws {
        let cutoff = clock.now().adding(seconds: -Self.seenEventRetentionSeconds).milliseconds
        try db.transaction { try db.run("DELETE FROM consumer_seen_events WHERE at_ms < ?", cutoff) }
    }

    /// A publisher that started over from an empty database counts its seq from 1 again, so our
    /// cursors for it mean nothing now: reset them, and the catch-up that follows replays its new
    /// history. Otherwise just remember its epoch.
    private func adopt(epoch: String, of source: String, reset: Bool) {
        do {
            try db.transaction {
                if reset { try db.run("DELETE FROM consumer_cursors WHERE source = ?", source) }
                if !epoch.isEmpty {
                    try db.run("INSERT INTO consumer_epochs (source, epoch) VALUES (?, ?) ON CONFLICT(source) DO UPDATE SET epoch = excluded.epoch", source, epoch)
                }
            }
        } catch {
            logger.error("could not record a publisher's restart", ["source": source, "error": "\(error)"])
            return
        }
        if reset {
            logger.warning("publisher started over; cursors reset", ["source": source, "epoch": epoch])
            for k in cursors.keys where k.hasPrefix(source + "\u{1}") { setCursor(k, nil) }
        }
        if !epoch.isEmpty {
            if db.inTransaction {
                let old = epochs[source]
                undo.append { [unowned self] in self.epochs[source] = old }
            }
            epochs[source] = epoch
        }
    }

    /// Replays `stream` from the publisher until our cursor reaches `through` or the publisher
    /// has nothing more. Failures are logged; the next heartbeat tries again.
    public func catchUp(source: String, stream: String, through target: UInt64) {
        guard let endpoint = endpoints[source] else { return }
        let client = clients[source] ?? RequestClient(context: context, endpoint: endpoint, timeoutMilliseconds: 1_000)
        clients[source] = client
        while cursor(source: source, stream: stream) < target {
            let from = cursor(source: source, stream: stream) + 1
            let reply: ReplayReply
            do {
                reply = try client.call(Op.replay, ReplayRequest(stream: stream, fromSeq: from, limit: 500), as: ReplayReply.self)
            } catch {
                logger.warning("replay failed", ["source": source, "stream": stream, "endpoint": endpoint, "error": "\(error)"])
                return
            }
            if reply.events.isEmpty { return }
            var applied = 0
            // A page in one transaction (a savepoint per event): one commit, not one per event. It
            // applies strictly in order and stops at the first event the storage could not take;
            // a failed commit undoes the page, cursors included.
            do {
                try db.transaction {
                    for event in reply.events where event.envelope.seq > cursor(source: source, stream: stream) {
                        guard event.envelope.seq == cursor(source: source, stream: stream) + 1 else { break }
                        if applyInOrder(topic: event.topic, envelope: event.envelope, raw: Wire.encode(event.envelope)) == .failed {
                            throw storageFailure ?? SQLiteError(code: 10, message: "storage failed", context: "replay")
                        }
                        applied += 1
                    }
                }
            } catch let error as SQLiteError where error.isStorageFailure {
                storageFailure = error
                return
            } catch {
                return
            }
            // Nothing applied: stop; the next heartbeat tries again.
            if cursor(source: source, stream: stream) < from { return }
            replayedCount += applied
            logger.info("caught up by replay", ["source": source, "stream": stream, "events": "\(applied)", "cursor": "\(cursor(source: source, stream: stream))"])
        }
    }

    /// Closes replay clients on the owning thread.
    public func close() {
        for client in clients.values { client.close() }
        clients.removeAll()
    }
}

extension StreamFollower: TransactionObserver {
    public func transactionBegan(depth: Int) {
        undoMarks.append(undo.count)
    }

    public func transactionCommitted(depth: Int) {
        undoMarks.removeLast()
        if depth == 1 { undo.removeAll(keepingCapacity: true) }
    }

    public func transactionRolledBack(depth: Int) {
        let mark = undoMarks.removeLast()
        while undo.count > mark { undo.removeLast()() }
    }
}
