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
    ]

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

    /// Each stream's last written seq, found through the primary key (read once, at start).
    func lastSeqs() throws -> [String: UInt64] {
        var last: [String: UInt64] = [:]
        for row in try db.query("SELECT DISTINCT stream FROM outbox") {
            let stream = row.string("stream")
            last[stream] = UInt64(try db.query("SELECT MAX(seq) AS seq FROM outbox WHERE stream = ?", stream).first?.int64("seq") ?? 0)
        }
        return last
    }

    /// The last seq of `stream` in the table (0 when it has none): the replay worker's view, read
    /// through the primary key.
    func lastSeq(of stream: String) throws -> UInt64 {
        UInt64(try db.query("SELECT MAX(seq) AS seq FROM outbox WHERE stream = ?", stream).first?.optionalInt64("seq") ?? 0)
    }

    /// Writes one event, in the caller's transaction.
    func insert(_ event: Outbox.Event, createdAt: Timestamp) throws {
        try db.run("INSERT INTO outbox (stream, seq, topic, envelope, created_ms) VALUES (?, ?, ?, ?, ?)",
                   event.stream, event.seq, event.topic, event.frame, createdAt.milliseconds)
    }

    /// Up to `limit` events of `stream` from `fromSeq` on, in seq order.
    func events(of stream: String, from fromSeq: UInt64, limit: Int) throws -> [(seq: UInt64, topic: String, envelope: Data)] {
        try db.query("SELECT seq, topic, envelope FROM outbox WHERE stream = ? AND seq >= ? ORDER BY seq LIMIT ?", stream, fromSeq, limit)
            .map { (UInt64($0.int64("seq")), $0.string("topic"), $0.data("envelope")) }
    }

    /// Stores how far `stream` was published.
    func storePublished(_ stream: String, _ seq: UInt64) throws {
        try db.run("INSERT INTO outbox_published (stream, seq) VALUES (?, ?) ON CONFLICT(stream) DO UPDATE SET seq = excluded.seq", stream, seq)
    }

    /// Deletes the events of `stream` below `seq` written before `before`; returns how many.
    @discardableResult
    func deleteEvents(of stream: String, below seq: UInt64, writtenBefore before: Timestamp) throws -> Int {
        try db.run("DELETE FROM outbox WHERE stream = ? AND seq < ? AND created_ms < ?", stream, seq, before.milliseconds)
        return db.changes
    }

    /// The oldest seq of `stream` still in the table (nil when it has none), through the primary key.
    func oldestSeq(of stream: String) throws -> UInt64? {
        try db.query("SELECT MIN(seq) AS seq FROM outbox WHERE stream = ?", stream).first?.optionalInt64("seq").map { UInt64($0) }
    }
}
