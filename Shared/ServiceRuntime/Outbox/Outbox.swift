import Foundation
import Messages
import SQLite

/// The transactional outbox: events are written in the same SQLite transaction as the state
/// change that caused them, numbered contiguously per stream, and published once it commits.
///
/// What a transaction appends is also kept in memory and sent from there once the outermost
/// transaction commits, so an event is encoded once and never read back right after it was
/// written; the table is read only at start (what a crash left unsent) and for replay. A crash
/// after commit and before sending loses nothing (the restarted outbox sends it); a crash after
/// sending and before the published position was stored sends it again (consumers dedupe by
/// stream and seq). The table doubles as the replay log that consumers catch up from; its SQL
/// is `OutboxStore`'s.
public final class Outbox {
    /// One event as it was written: its stream position, topic and encoded envelope.
    public struct Event: Sendable {
        public let stream: String
        public let seq: UInt64
        public let topic: String
        public let frame: Data
        /// Its row's key (`OutboxStore.key`) and creation time, for the insert at commit.
        let key: Int64
        let createdMs: Int64
    }

    /// Committed events not yet handed to the socket beyond this many are left to the table
    /// (re-read when the socket takes sends again), so a long send failure cannot grow memory.
    static let memoryLimit = 50_000

    let db: Database
    let store: OutboxStore
    /// This publisher's instance name, the envelope's `source`.
    public let source: String
    let clock: any WallClock
    /// Chosen once, when this outbox's database is created; announced in heartbeats.
    public private(set) var epoch = ""

    /// How far each stream was handed to the socket, and how far that was stored.
    private(set) var published: [String: UInt64] = [:]
    private var storedPublished: [String: UInt64] = [:]
    /// The last committed seq of every stream this outbox has written.
    private var committed: [String: UInt64] = [:]
    /// Committed and not yet sent, in commit order; `backlog` means the table holds more than this.
    private var unsent: [Event] = []
    private var unsentStart = 0
    private var backlog = false
    /// Event ids: a random prefix per process and a counter. Unique without a UUID per event (on
    /// Linux each `UUID()` reads the kernel's random source, and region-monitor writes one per
    /// region event); an event sent again after a crash is the stored one, with its id.
    private let idPrefix = String(UInt64.random(in: 0...UInt64.max), radix: 36) + "-"
    private var idCounter: UInt64 = 0
    /// Written in the open transaction; `marks` are where each open savepoint began.
    private var uncommitted: [Event] = []
    private var uncommittedLast: [String: UInt64] = [:]
    /// The stream appended to last in the open transaction, its number and last seq, apart from
    /// `uncommittedLast` and `numbers` until another stream is appended to or a level rolls back:
    /// a run of one stream's events (a consumer's batch) hashed its name three times an event.
    private var hot: (stream: String, number: Int64, seq: UInt64)?
    private var marks: [Int] = []
    /// Each stream's number in the event keys (`OutboxStore.key`), as stored; `numbered` are
    /// those numbered in the open transaction, forgotten if it rolls back.
    private var numbers: [String: Int64] = [:]
    private var numbered: [String] = []
    /// Consumers replaying now, and each stream's oldest kept seq (see `Outbox+Retention`).
    var replaying = ReplayingConsumers()
    var oldestKept: [String: UInt64] = [:]

    public init(db: Database, source: String, clock: any WallClock) throws {
        self.db = db
        self.source = source
        self.clock = clock
        store = OutboxStore(db: db)
        try store.migrate()
        if let stored = try store.epoch() {
            epoch = stored
        } else {
            epoch = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            try store.storeEpoch(epoch)
        }
        published = try store.publishedPositions()
        storedPublished = published
        // Once at start: each stream's last seq, and what a crash left unsent.
        committed = try store.lastSeqs()
        backlog = committed.contains { $0.value > (published[$0.key] ?? 0) }
        db.addTransactionObserver(self)
    }

    /// Writes an event into the current transaction and returns its envelope.
    /// Must be called inside `db.transaction`, together with the change it announces.
    @discardableResult
    public func append(_ type: EventType, topic: String, stream: String, body: EventBody) throws -> Envelope {
        try appendEvent(type, topic: topic, stream: stream, body: body).envelope
    }

    /// `append`, also returning the encoded frame (whose `body` a store may keep instead of
    /// encoding it again) and, when the encoder marked it, the range of the frame that is the body.
    public func appendEvent(_ type: EventType, topic: String, stream: String, body: EventBody) throws -> (envelope: Envelope, frame: Data, body: Range<Int>?) {
        precondition(db.inTransaction, "outbox events are written in the transaction of the change they announce")
        let seq: UInt64, streamNumber: Int64
        if let hot, hot.stream == stream {
            seq = hot.seq + 1
            streamNumber = hot.number
        } else {
            settleHot()
            seq = try lastSeq(stream) + 1
            streamNumber = try number(of: stream)
        }
        guard seq <= OutboxStore.maxSeq else { throw OutboxStore.KeysExhausted.seqs(stream) }
        idCounter += 1
        let envelope = Envelope(type: type, id: idPrefix + String(idCounter, radix: 36), source: source, stream: stream, seq: seq, time: clock.now(), body: body)
        let (frame, bodyRange) = Wire.encodeMarkingBody(envelope)
        // Its row is written with the transaction's others just before it commits (`transactionWillCommit`).
        uncommitted.append(Event(stream: stream, seq: seq, topic: topic, frame: frame, key: OutboxStore.key(number: streamNumber, seq: seq),
                                 createdMs: envelope.time.milliseconds))
        hot = (stream, streamNumber, seq)
        return (envelope, frame, bodyRange)
    }

    /// Puts the stream appended to last back among the others (`uncommittedLast`).
    private func settleHot() {
        guard let hot else { return }
        uncommittedLast[hot.stream] = hot.seq
        self.hot = nil
    }

    /// `stream`'s number in the event keys, numbering it in the open transaction the first time.
    private func number(of stream: String) throws -> Int64 {
        if let known = numbers[stream] { return known }
        let number: Int64
        if let stored = try store.number(of: stream) {
            number = stored
        } else {
            number = try store.addStream(stream)
            numbered.append(stream)
        }
        numbers[stream] = number
        return number
    }

    /// The last sequence number written to `stream` (0 when none), the open transaction included.
    public func lastSeq(_ stream: String) throws -> UInt64 {
        if let hot, hot.stream == stream { return hot.seq }
        return uncommittedLast[stream] ?? committed[stream] ?? 0
    }

    /// The last committed sequence number of every stream this outbox has written.
    public func lastSeqs() throws -> [String: UInt64] {
        committed.filter { $0.value > 0 }
    }

    /// `lastSeqs()` with the time it was read at, taken first: every event it does not count is
    /// stamped no earlier (consumers tell a stale heartbeat by it). Nil inside a transaction, whose
    /// events were stamped before and are not counted yet.
    public func heads() throws -> (streams: [String: UInt64], at: Timestamp?) {
        let at = db.inTransaction ? nil : clock.now()
        return (try lastSeqs(), at)
    }

    /// Events committed and not yet handed to the socket.
    public func pendingCount() throws -> Int {
        committed.reduce(0) { $0 + Int($1.value - min($1.value, published[$1.key] ?? 0)) }
    }

    /// Hands every unpublished event to `send` in sequence order and remembers how far it got.
    /// Stops at the first send that fails; the rest goes out on the next flush. Never runs inside
    /// an open transaction: what is not committed yet must not be announced.
    public func flush(batch: Int = 1000, _ send: (_ topic: String, _ envelope: Data) throws -> Void) throws {
        guard !db.inTransaction else { return }
        if backlog {
            try flushFromTable(batch: batch, send)
            return
        }
        var sent = 0
        // The stream being sent and how far it went, kept out of the dictionary while the stream
        // does not change (a run of one stream's events looked its name up twice an event); put
        // back when it changes and on leaving, a failed send included.
        var current: (stream: String, seq: UInt64)?
        defer { if let current { published[current.stream] = current.seq } }
        while unsentStart < unsent.count, sent < batch {
            let event = unsent[unsentStart]
            if current?.stream != event.stream {
                if let current { published[current.stream] = current.seq }
                current = (event.stream, published[event.stream] ?? 0)
            }
            if let last = current?.seq, event.seq > last {
                try send(event.topic, event.frame)
                current?.seq = event.seq
                sent += 1
            }
            unsentStart += 1
        }
        if unsentStart == unsent.count {
            unsent.removeAll(keepingCapacity: unsent.count < 4_096)
            unsentStart = 0
        }
    }

    /// After a restart or a long send failure: sends from the table until it has caught up with
    /// what is committed, then flushing goes back to memory.
    private func flushFromTable(batch: Int, _ send: (_ topic: String, _ envelope: Data) throws -> Void) throws {
        var remaining = batch
        for (stream, last) in committed.sorted(by: { $0.key < $1.key }) where last > (published[stream] ?? 0) && remaining > 0 {
            let from = (published[stream] ?? 0) + 1
            for event in try store.events(of: stream, from: from, limit: remaining) {
                try send(event.topic, event.envelope)
                published[stream] = event.seq
                remaining -= 1
            }
        }
        if !committed.contains(where: { $0.value > (published[$0.key] ?? 0) }) {
            backlog = false
            unsent.removeAll()
            unsentStart = 0
        }
    }

    /// Writes how far each stream was published, so a restart does not send it all again.
    /// Called on a timer, not per flush (a commit per send would double the writes): after a
    /// crash at most one interval is sent again, and consumers dedupe by stream and seq.
    public func persistPublished() throws {
        guard !db.inTransaction else { return }
        let changed = published.filter { storedPublished[$0.key] != $0.value }
        guard !changed.isEmpty else { return }
        try db.transaction {
            for (stream, seq) in changed {
                try store.storePublished(stream, seq)
            }
        }
        storedPublished.merge(changed) { _, new in new }
    }

    /// Up to `limit` events of `stream` from `fromSeq` on, as published: (seq, topic, envelope JSON).
    /// Throws `replay.pruned` when `fromSeq` is before the oldest event kept.
    public func replay(stream: String, fromSeq: UInt64, limit: Int) throws -> [(seq: UInt64, topic: String, envelope: Data)] {
        if let oldest = try store.oldestSeq(of: stream), max(fromSeq, 1) < oldest {
            throw ReplayPruned.error(stream: stream, fromSeq: fromSeq, oldestSeq: oldest)
        }
        return try store.events(of: stream, from: max(fromSeq, 1), limit: limit)
    }

    /// The database file this outbox lives in: where an `OutboxReader` reads it from another thread.
    public var databasePath: String { db.path }

    /// Deletes published events older than `before`, keeping the newest of each stream so
    /// sequence numbers continue after a restart.
    public func prune(before: Timestamp) throws {
        oldestKept.removeAll()
        try db.transaction {
            for (stream, sent) in published {
                try store.deleteEvents(of: stream, below: sent, writtenBefore: before)
            }
        }
    }
}

extension Outbox: TransactionObserver {
    public func transactionBegan(depth: Int) {
        marks.append(uncommitted.count)
    }

    /// The rows of the events the transaction kept, several to a statement: one INSERT per event
    /// cost region-monitor's first-seen device two statements' overhead (step, cursor, halt,
    /// reset, binding) besides the rows themselves. Events in a savepoint that rolled back are
    /// gone from `uncommitted` already and never reach the table.
    public func transactionWillCommit() throws {
        guard !uncommitted.isEmpty else { return }
        try store.insert(uncommitted)
    }

    public func transactionCommitted(depth: Int) {
        marks.removeLast()
        if depth == 1 {
            numbered.removeAll()
            hot = nil
        }
        guard depth == 1, !uncommitted.isEmpty else { return }
        // The outermost commit: these events are durable and may be announced. Each run of one
        // stream's events sets its last seq once.
        var run: (stream: String, seq: UInt64)?
        for event in uncommitted {
            if let last = run, last.stream != event.stream { committed[last.stream] = last.seq }
            run = (event.stream, event.seq)
        }
        if let run { committed[run.stream] = run.seq }
        if !backlog {
            unsent.append(contentsOf: uncommitted)
            if unsent.count - unsentStart > Self.memoryLimit {
                backlog = true
                unsent.removeAll()
                unsentStart = 0
            }
        }
        uncommitted.removeAll(keepingCapacity: true)
        uncommittedLast.removeAll(keepingCapacity: true)
    }

    public func transactionRolledBack(depth: Int) {
        // The stream appended to last may have lost events, or its number, with this level.
        settleHot()
        // A stream numbered in what rolled back may have lost its number (any savepoint of it):
        // looked up again at its next event.
        for stream in numbered { numbers[stream] = nil }
        if depth == 1 { numbered.removeAll() }
        let mark = marks.removeLast()
        guard uncommitted.count > mark else { return }
        uncommitted.removeSubrange(mark...)
        uncommittedLast.removeAll(keepingCapacity: true)
        for event in uncommitted { uncommittedLast[event.stream] = event.seq }
    }
}
