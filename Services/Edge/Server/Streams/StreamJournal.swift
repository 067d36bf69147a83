import Foundation
import Messages
import SQLite

/// The events each channel has carried, in the edge's SQLite: what a client that (re)connects
/// missed is read from here (after its `Last-Event-ID`, or from the start). Written by the bus
/// consumer in the transaction that moves its cursor, so the journal and the cursor never
/// disagree: a restart neither loses an event nor journals one twice. Kept `retentionHours`
/// (an order's life is a day); older rows are pruned by the edge's pruner, 500 at a time.
public struct StreamJournal {
    /// At most this many events are written into one response; a client that missed more (a
    /// device with a week of notifications) gets the newest, in order.
    public static let maxBacklog = 200

    static let migrations = [
        Migration(1, """
            CREATE TABLE stream_events (
                channel TEXT NOT NULL,
                seq INTEGER NOT NULL,
                event TEXT NOT NULL,
                data BLOB NOT NULL,
                at_ms INTEGER NOT NULL,
                PRIMARY KEY (channel, seq)
            ) WITHOUT ROWID;
            CREATE INDEX stream_events_at ON stream_events (at_ms);
            """),
        // A café's screen events come from three bus streams: their ids are the channel's own
        // count, kept apart from the events so pruning never hands an id out twice.
        Migration(2, """
            CREATE TABLE stream_counters (
                channel TEXT PRIMARY KEY,
                last INTEGER NOT NULL
            ) WITHOUT ROWID;
            """),
        // An ordinary (rowid) table: rows keyed by channel arrive in no key order, so the WITHOUT ROWID
        // table's pages were split and about 70% full (measured in the campus run: 1,077 bytes on disk
        // per event of 769), and an event over about 1,000 bytes would spill into an overflow page of
        // its own. Rowids come in order and fill their pages. Copied once, when a journal from before
        // is first opened.
        Migration(3, """
            CREATE TABLE stream_events_rows (
                channel TEXT NOT NULL,
                seq INTEGER NOT NULL,
                event TEXT NOT NULL,
                data BLOB NOT NULL,
                at_ms INTEGER NOT NULL,
                PRIMARY KEY (channel, seq)
            );
            INSERT INTO stream_events_rows (channel, seq, event, data, at_ms) SELECT channel, seq, event, data, at_ms FROM stream_events;
            DROP TABLE stream_events;
            ALTER TABLE stream_events_rows RENAME TO stream_events;
            CREATE INDEX stream_events_at ON stream_events (at_ms);
            """),
    ]

    let db: Database

    public init(db: Database) { self.db = db }

    /// Brings the journal's table up to date.
    public func migrate() throws {
        try db.migrate("edge_streams", Self.migrations)
    }

    /// Journals one event (in the caller's transaction); an event already there is left as it was.
    public func append(_ event: StreamEvent, at time: Timestamp) throws {
        try db.run("INSERT OR IGNORE INTO stream_events (channel, seq, event, data, at_ms) VALUES (?, ?, ?, ?, ?)",
                   event.channel, Int64(event.event.id), event.event.event, Data(event.event.data), time.milliseconds)
    }

    /// The channel's events after `after` (all of them when nil), oldest first, at most `limit` (the newest ones).
    public func events(channel: String, after: UInt64?, limit: Int = StreamJournal.maxBacklog) throws -> [ServerSentEvent] {
        let rows = try db.query("SELECT seq, event, data FROM stream_events WHERE channel = ? AND seq > ? ORDER BY seq DESC LIMIT ?",
                                channel, Int64(after ?? 0), max(0, min(limit, Self.maxBacklog)))
        return rows.reversed().map { row in
            ServerSentEvent(id: UInt64(row.int64("seq")), event: row.string("event"), data: Array(row.data("data")))
        }
    }

    /// Deletes events journalled before `cutoff`; returns how many.
    @discardableResult
    public func prune(before cutoff: Timestamp) throws -> Int {
        try db.run("DELETE FROM stream_events WHERE at_ms < ?", cutoff.milliseconds)
        return db.changes
    }

    /// Deletes up to `limit` events journalled before `cutoff`, oldest first (through
    /// `stream_events_at`); returns how many. The caller's transaction, or one of its own.
    public func prune(before cutoff: Timestamp, limit: Int) throws -> Int {
        try db.run("""
            DELETE FROM stream_events WHERE (channel, seq) IN
              (SELECT channel, seq FROM stream_events WHERE at_ms < ? ORDER BY at_ms LIMIT ?)
            """, cutoff.milliseconds, limit)
        return db.changes
    }

    /// How many events are journalled (a scan: for tests and tools, not for health).
    public func count() throws -> Int {
        try db.query("SELECT COUNT(*) AS n FROM stream_events").first?.int("n") ?? 0
    }
}
