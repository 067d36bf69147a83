import Foundation
import Messages
import SQLite

/// The transactional outbox: events are written in the same SQLite transaction as the state
/// change that caused them, numbered contiguously per stream, and published from the table.
///
/// A crash after commit and before sending loses nothing (the next flush sends it); a crash after
/// sending and before marking it sent re-sends it (consumers dedupe by stream and seq). The table
/// doubles as the replay log that consumers catch up from.
public final class Outbox {
    public static let migrations = [
        Migration(1, """
            CREATE TABLE outbox (
                stream TEXT NOT NULL,
                seq INTEGER NOT NULL,
                topic TEXT NOT NULL,
                envelope BLOB NOT NULL,
                created_ms INTEGER NOT NULL,
                PRIMARY KEY (stream, seq)
            ) WITHOUT ROWID;
            CREATE TABLE outbox_published (stream TEXT PRIMARY KEY, seq INTEGER NOT NULL);
            """),
        Migration(2, "CREATE TABLE outbox_epoch (epoch TEXT NOT NULL);"),
    ]

    private let db: Database
    /// This publisher's instance name, the envelope's `source`.
    public let source: String
    private let clock: any WallClock
    private var published: [String: UInt64] = [:]
    /// Chosen once, when this outbox's database is created; announced in heartbeats.
    public private(set) var epoch = ""
    /// Every stream this outbox has written. Looking each one's last seq up through the primary
    /// key keeps flushes O(streams · log n), where a GROUP BY would scan the whole table.
    private var streams: Set<String> = []

    public init(db: Database, source: String, clock: any WallClock) throws {
        self.db = db
        self.source = source
        self.clock = clock
        try db.migrate("outbox", Self.migrations)
        if let stored = try db.query("SELECT epoch FROM outbox_epoch").first?.string("epoch") {
            epoch = stored
        } else {
            epoch = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            try db.run("INSERT INTO outbox_epoch (epoch) VALUES (?)", epoch)
        }
        for row in try db.query("SELECT stream, seq FROM outbox_published") {
            published[row.string("stream")] = UInt64(row.int64("seq"))
        }
        // Once at start: the distinct leading key of the primary key.
        for row in try db.query("SELECT DISTINCT stream FROM outbox") { streams.insert(row.string("stream")) }
        streams.formUnion(published.keys)
    }

    /// Writes an event into the current transaction and returns its envelope.
    /// Must be called inside `db.transaction`, together with the change it announces.
    @discardableResult
    public func append(_ type: EventType, topic: String, stream: String, body: EventBody) throws -> Envelope {
        precondition(db.inTransaction, "outbox events are written in the transaction of the change they announce")
        let seq = try lastSeq(stream) + 1
        let envelope = Envelope(type: type, source: source, stream: stream, seq: seq, time: clock.now(), body: body)
        try db.run("INSERT INTO outbox (stream, seq, topic, envelope, created_ms) VALUES (?, ?, ?, ?, ?)",
                   stream, seq, topic, Wire.encode(envelope), envelope.time.milliseconds)
        // Remembered even if the transaction rolls back: an empty stream reads as last seq 0.
        streams.insert(stream)
        return envelope
    }

    /// The last sequence number written to `stream` (0 when none).
    public func lastSeq(_ stream: String) throws -> UInt64 {
        UInt64(try db.query("SELECT MAX(seq) AS seq FROM outbox WHERE stream = ?", stream).first?.int64("seq") ?? 0)
    }

    /// The last sequence number of every stream this outbox has written.
    public func lastSeqs() throws -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        for stream in streams {
            let last = try lastSeq(stream)
            if last > 0 { result[stream] = last }
        }
        return result
    }

    /// Events written and not yet handed to the socket.
    public func pendingCount() throws -> Int {
        var pending = 0
        for (stream, last) in try lastSeqs() {
            pending += Int(last - min(last, published[stream] ?? 0))
        }
        return pending
    }

    /// Hands every unpublished event to `send` in sequence order and remembers how far it got.
    /// Stops at the first send that fails; the rest goes out on the next flush. Never runs inside
    /// an open transaction: what is not committed yet must not be announced.
    public func flush(batch: Int = 1000, _ send: (_ topic: String, _ envelope: Data) throws -> Void) throws {
        guard !db.inTransaction else { return }
        for (stream, last) in try lastSeqs() where last > (published[stream] ?? 0) {
            let from = (published[stream] ?? 0) + 1
            let rows = try db.query("SELECT seq, topic, envelope FROM outbox WHERE stream = ? AND seq >= ? ORDER BY seq LIMIT ?", stream, from, batch)
            for row in rows {
                try send(row.string("topic"), row.data("envelope"))
                published[stream] = UInt64(row.int64("seq"))
            }
        }
    }

    /// Writes how far each stream was published, so a restart does not send it all again.
    /// Called on a timer, not per flush (a commit per send would double the writes): after a
    /// crash at most one interval is sent again, and consumers dedupe by stream and seq.
    public func persistPublished() throws {
        guard !db.inTransaction else { return }
        let stored = Dictionary(uniqueKeysWithValues: try db.query("SELECT stream, seq FROM outbox_published").map { ($0.string("stream"), UInt64($0.int64("seq"))) })
        let changed = published.filter { stored[$0.key] != $0.value }
        guard !changed.isEmpty else { return }
        try db.transaction {
            for (stream, seq) in changed {
                try db.run("INSERT INTO outbox_published (stream, seq) VALUES (?, ?) ON CONFLICT(stream) DO UPDATE SET seq = excluded.seq", stream, seq)
            }
        }
    }

    /// Up to `limit` events of `stream` from `fromSeq` on, as published: (seq, topic, envelope JSON).
    public func replay(stream: String, fromSeq: UInt64, limit: Int) throws -> [(seq: UInt64, topic: String, envelope: Data)] {
        try db.query("SELECT seq, topic, envelope FROM outbox WHERE stream = ? AND seq >= ? ORDER BY seq LIMIT ?", stream, max(fromSeq, 1), limit)
            .map { (UInt64($0.int64("seq")), $0.string("topic"), $0.data("envelope")) }
    }

    /// Deletes published events older than `before`, keeping the newest of each stream so
    /// sequence numbers continue after a restart.
    public func prune(before: Timestamp) throws {
        try db.transaction {
            for (stream, sent) in published {
                try db.run("DELETE FROM outbox WHERE stream = ? AND seq < ? AND created_ms < ?", stream, sent, before.milliseconds)
            }
        }
    }
}
