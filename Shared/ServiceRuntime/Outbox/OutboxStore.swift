import Foundation
import Messages
import SQLite

/// The outbox's SQL, all of it: the event log (which doubles as the replay log), how far each
/// stream was published, and the epoch. Each statement is one fixed text, so the database's
/// statement cache prepares it once and every append reuses it.
struct OutboxStore {
    /// The schema of the `outbox` component (its table names and versions are what existing
    /// data folders hold: never renumbered).
    static let migrations = [
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
        // An ordinary (rowid) table: an envelope is often over 1,000 bytes, and a WITHOUT ROWID row that
        // large keeps only about 490 bytes in its b-tree page and the rest in an overflow page of its
        // own, 4 KiB for a few hundred bytes (measured: 2.5 KiB a row for 0.95 KiB of order event).
        // Rows of up to about 4,000 bytes now stay whole in the table's pages; the primary key is an
        // index beside them. Copied once, when a database from before is first opened.
        Migration(3, """
            CREATE TABLE outbox_rows (
                stream TEXT NOT NULL,
                seq INTEGER NOT NULL,
                topic TEXT NOT NULL,
                envelope BLOB NOT NULL,
                created_ms INTEGER NOT NULL,
                PRIMARY KEY (stream, seq)
            );
            INSERT INTO outbox_rows (stream, seq, topic, envelope, created_ms) SELECT stream, seq, topic, envelope, created_ms FROM outbox;
            DROP TABLE outbox;
            ALTER TABLE outbox_rows RENAME TO outbox;
            """),
        // One b-tree, not two: an event's key is its stream's number and its seq in one integer,
        // the rowid (`key(number:seq:)`), so the table is in (stream, seq) order without the
        // primary-key index beside it, and a stream's events are appended at the end of its range.
        // The index was a second insert per event (callgrind of `load-test bench --only e`: 12,500
        // of a first-seen device's 146,800 instructions, its two events). `stream` and `seq` stay
        // as columns, for reading. Copied once, when a database from before is first opened.
        Migration(4, """
            CREATE TABLE outbox_streams (stream TEXT PRIMARY KEY, number INTEGER NOT NULL UNIQUE);
            INSERT INTO outbox_streams (stream, number)
                SELECT stream, ROW_NUMBER() OVER (ORDER BY stream) FROM (SELECT DISTINCT stream FROM outbox);
            CREATE TABLE outbox_keyed (
                id INTEGER PRIMARY KEY,
                stream TEXT NOT NULL,
                seq INTEGER NOT NULL,
                topic TEXT NOT NULL,
                envelope BLOB NOT NULL,
                created_ms INTEGER NOT NULL
            );
            INSERT INTO outbox_keyed (id, stream, seq, topic, envelope, created_ms)
                SELECT (s.number << 44) | o.seq, o.stream, o.seq, o.topic, o.envelope, o.created_ms
                FROM outbox o JOIN outbox_streams s ON s.stream = o.stream;
            DROP TABLE outbox;
            ALTER TABLE outbox_keyed RENAME TO outbox;
            """),
    ]

    /// Bits of an event's key that hold its seq; the stream's number is above them. 2^44 events
    /// is 5.5 years of a stream at 100,000 a second.
    static let seqBits: Int64 = 44
    /// The largest seq a key holds.
    static let maxSeq = UInt64(1) << UInt64(seqBits) - 1

    /// An event's key: its stream's number and its seq.
    static func key(number: Int64, seq: UInt64) -> Int64 {
        number << seqBits | Int64(min(seq, maxSeq))
    }

    /// The most streams a key can tell apart: the number sits above the seq's 44 bits of an Int64.
    static let maxStreams: Int64 = 1 << (63 - seqBits) - 1

    /// A stream past its last seq (`maxSeq`), or one more stream than keys can tell apart.
    struct KeysExhausted: Error, CustomStringConvertible {
        let stream: String
        let what: String
        var description: String { "outbox stream \(stream): \(what)" }

        static func seqs(_ stream: String) -> KeysExhausted { KeysExhausted(stream: stream, what: "every seq a key holds (\(OutboxStore.maxSeq)) is used") }
        static func streams(_ stream: String) -> KeysExhausted { KeysExhausted(stream: stream, what: "no number left (\(OutboxStore.maxStreams) streams)") }
    }

    let db: Database

    /// Brings the outbox's tables up to date.
    func migrate() throws {
        try db.migrate("outbox", Self.migrations)
    }

    /// The epoch chosen when this database was created; nil before it was.
    func epoch() throws -> String? {
        try db.query("SELECT epoch FROM outbox_epoch").first?.string("epoch")
    }

    /// Stores the epoch (once, when the database is new).
    func storeEpoch(_ epoch: String) throws {
        try db.run("INSERT INTO outbox_epoch (epoch) VALUES (?)", epoch)
    }

    /// How far each stream was published, as last stored.
    func publishedPositions() throws -> [String: UInt64] {
        var published: [String: UInt64] = [:]
        for row in try db.query("SELECT stream, seq FROM outbox_published") {
            published[row.string("stream")] = UInt64(row.int64("seq"))
        }
        return published
    }

    /// A stream's number, nil while it has none (no event was ever written to it).
    func number(of stream: String) throws -> Int64? {
        try db.query("SELECT number FROM outbox_streams WHERE stream = ?", stream).first?.int64("number")
    }

    /// Numbers a stream not numbered yet, in the caller's transaction; returns its number.
    func addStream(_ stream: String) throws -> Int64 {
        let next = try db.query("SELECT COALESCE(MAX(number), 0) + 1 AS n FROM outbox_streams").first?.int64("n") ?? 1
        // Shifted past 63 bits, a number would leave the key: two streams' events would collide.
        guard next <= Self.maxStreams else { throw KeysExhausted.streams(stream) }
        try db.run("INSERT INTO outbox_streams (stream, number) VALUES (?, ?)", stream, next)
        return next
    }

    /// The keys of `stream`'s events from `seq` on (`from` nil when the stream has no number,
    /// or `seq` is past what a key holds).
    private func range(of stream: String, from seq: UInt64 = 0) throws -> (from: Int64, to: Int64)? {
        guard seq <= Self.maxSeq, let number = try number(of: stream) else { return nil }
        return (Self.key(number: number, seq: seq), Self.key(number: number, seq: Self.maxSeq))
    }

    /// Each stream's last written seq, found through the key (read once, at start).
    func lastSeqs() throws -> [String: UInt64] {
        var last: [String: UInt64] = [:]
        for row in try db.query("SELECT stream FROM outbox_streams") {
            let stream = row.string("stream")
            let seq = try lastSeq(of: stream)
            if seq > 0 { last[stream] = seq }
        }
        return last
    }

    /// The last seq of `stream` in the table (0 when it has none): the replay worker's view, read
    /// through the key.
    func lastSeq(of stream: String) throws -> UInt64 {
        guard let range = try range(of: stream) else { return 0 }
        let key = try db.query("SELECT MAX(id) AS id FROM outbox WHERE id BETWEEN ? AND ?", range.from, range.to).first?.optionalInt64("id")
        return key.map { UInt64($0 & Int64(Self.maxSeq)) } ?? 0
    }

    /// Writes events, in the caller's transaction, under their keys: up to `rowsPerInsert` rows a
    /// statement.
    func insert(_ events: [Outbox.Event]) throws {
        var values: [any SQLiteBindable] = []
        values.reserveCapacity(6 * min(events.count, Self.rowsPerInsert))
        var start = 0
        while start < events.count {
            let end = min(start + Self.rowsPerInsert, events.count)
            values.removeAll(keepingCapacity: true)
            for event in events[start..<end] {
                values.append(event.key)
                values.append(event.stream)
                values.append(event.seq)
                values.append(event.topic)
                values.append(event.frame)
                values.append(event.createdMs)
            }
            try db.run(Self.inserts[end - start - 1], values: values)
            start = end
        }
    }

    /// Rows a statement inserts at most: eight of region-monitor's events (about 450 bytes each)
    /// fit the 4 KiB each statement binds text and blobs from in place.
    static let rowsPerInsert = 8
    /// The statement for 1 … `rowsPerInsert` rows, made once (the statement cache finds each by
    /// its text's address).
    static let inserts: [String] = (1...rowsPerInsert).map { rows in
        "INSERT INTO outbox (id, stream, seq, topic, envelope, created_ms) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }

    /// Up to `limit` events of `stream` from `fromSeq` on, in seq order.
    func events(of stream: String, from fromSeq: UInt64, limit: Int) throws -> [(seq: UInt64, topic: String, envelope: Data)] {
        guard let range = try range(of: stream, from: fromSeq) else { return [] }
        return try db.query("SELECT seq, topic, envelope FROM outbox WHERE id BETWEEN ? AND ? ORDER BY id LIMIT ?", range.from, range.to, limit)
            .map { (UInt64($0.int64("seq")), $0.string("topic"), $0.data("envelope")) }
    }

    /// Stores how far `stream` was published.
    func storePublished(_ stream: String, _ seq: UInt64) throws {
        try db.run("INSERT INTO outbox_published (stream, seq) VALUES (?, ?) ON CONFLICT(stream) DO UPDATE SET seq = excluded.seq", stream, seq)
    }

    /// Deletes the events of `stream` below `seq` written before `before`; returns how many.
    @discardableResult
    func deleteEvents(of stream: String, below seq: UInt64, writtenBefore before: Timestamp) throws -> Int {
        guard let range = try range(of: stream), seq > 0 else { return 0 }
        let below = range.from + Int64(min(seq, Self.maxSeq + 1))
        try db.run("DELETE FROM outbox WHERE id >= ? AND id < ? AND created_ms < ?", range.from, below, before.milliseconds)
        return db.changes
    }

    /// The oldest seq of `stream` still in the table (nil when it has none), through the key.
    func oldestSeq(of stream: String) throws -> UInt64? {
        guard let range = try range(of: stream) else { return nil }
        return try db.query("SELECT MIN(id) AS id FROM outbox WHERE id BETWEEN ? AND ?", range.from, range.to).first?
            .optionalInt64("id").map { UInt64($0 & Int64(Self.maxSeq)) }
    }
}
