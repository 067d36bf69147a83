import Foundation
import Messages
import SQLite

/// The stream follower's SQL, all of it: cursors, publishers' epochs, the ledger of applied
/// event ids (one for every consumer of the database), and where best-effort streams got to.
/// Every write runs in the caller's transaction, beside the effect it records.
struct FollowerStore {
    /// The schema of the `consumer` component (its table names and versions are what existing
    /// data folders hold: never renumbered).
    static let migrations = [
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
        // Each id is kept until its own expiry (the retention of its stream, fixed when it was applied), and
        // found by it through an index, so a prune deletes a small batch without scanning the ledger. Rows
        // from before were applied at `at_ms` and kept 8 days.
        Migration(5, """
            ALTER TABLE consumer_seen_events RENAME COLUMN at_ms TO expires_ms;
            UPDATE consumer_seen_events SET expires_ms = expires_ms + 691200000;
            CREATE INDEX consumer_seen_events_expiry ON consumer_seen_events (expires_ms);
            """),
    ]

    let db: Database

    /// Brings the follower's tables up to date.
    func migrate() throws {
        try db.migrate("consumer", Self.migrations)
    }

    /// Every stored cursor: the last applied seq of each followed stream.
    func cursors() throws -> [StreamKey: UInt64] {
        var cursors: [StreamKey: UInt64] = [:]
        for row in try db.query("SELECT source, stream, seq FROM consumer_cursors") {
            cursors[StreamKey(source: row.string("source"), stream: row.string("stream"))] = UInt64(row.int64("seq"))
        }
        return cursors
    }

    /// Stores a stream's cursor.
    func storeCursor(_ key: StreamKey, _ seq: UInt64) throws {
        try db.run("INSERT INTO consumer_cursors (source, stream, seq) VALUES (?, ?, ?) ON CONFLICT(source, stream) DO UPDATE SET seq = excluded.seq",
                   key.source, key.stream, seq)
    }

    /// Deletes every cursor of `source` (a publisher that started over).
    func deleteCursors(of source: String) throws {
        try db.run("DELETE FROM consumer_cursors WHERE source = ?", source)
    }

    /// Every publisher's last known epoch.
    func epochs() throws -> [String: String] {
        var epochs: [String: String] = [:]
        for row in try db.query("SELECT source, epoch FROM consumer_epochs") {
            epochs[row.string("source")] = row.string("epoch")
        }
        return epochs
    }

    /// Stores a publisher's epoch.
    func storeEpoch(_ epoch: String, of source: String) throws {
        try db.run("INSERT INTO consumer_epochs (source, epoch) VALUES (?, ?) ON CONFLICT(source) DO UPDATE SET epoch = excluded.epoch", source, epoch)
    }

    /// Records an event id as applied, remembered until `expires`; false when it was already.
    func markSeen(_ id: String, expires: Timestamp) throws -> Bool {
        try db.run("INSERT INTO consumer_seen_events (event_id, expires_ms) VALUES (?, ?) ON CONFLICT(event_id) DO NOTHING", id, expires.milliseconds)
        return db.changes > 0
    }

    /// Whether an event id was applied (and not yet forgotten).
    func hasSeen(_ id: String) throws -> Bool {
        try !db.query("SELECT 1 AS one FROM consumer_seen_events WHERE event_id = ?", id).isEmpty
    }

    /// Forgets up to `limit` event ids that expired before `now`, oldest first; returns how many.
    func deleteExpiredSeenEvents(now: Timestamp, limit: Int) throws -> Int {
        try db.run("""
            DELETE FROM consumer_seen_events WHERE event_id IN
              (SELECT event_id FROM consumer_seen_events WHERE expires_ms < ? ORDER BY expires_ms LIMIT ?)
            """, now.milliseconds, limit)
        return db.changes
    }

    /// Where each best-effort stream got to, as last stored.
    func bestEffortPositions() throws -> [StreamKey: UInt64] {
        var positions: [StreamKey: UInt64] = [:]
        for row in try db.query("SELECT source, stream, seq FROM consumer_best_effort") {
            positions[StreamKey(source: row.string("source"), stream: row.string("stream"))] = UInt64(clamping: row.int64("seq"))
        }
        return positions
    }

    /// Stores where a best-effort stream got to.
    func storeBestEffortPosition(_ key: StreamKey, _ seq: UInt64) throws {
        try db.run("INSERT INTO consumer_best_effort (source, stream, seq) VALUES (?, ?, ?) ON CONFLICT(source, stream) DO UPDATE SET seq = excluded.seq",
                   key.source, key.stream, Int64(clamping: seq))
    }
}
