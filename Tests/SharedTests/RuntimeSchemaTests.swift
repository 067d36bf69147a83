import Foundation
import Messages
import SQLite
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// The runtime's tables as existing data folders hold them: the outbox's and the follower's SQL
/// may move (into `OutboxStore` and `FollowerStore`), but a folder written before must open
/// unchanged, under the same component names, versions and tables, with what it held.
@Suite("Runtime schema")
struct RuntimeSchemaTests {
    /// A data folder's runtime tables at outbox version 2 and consumer version 4, as written by
    /// the runtime before its SQL moved into store types.
    static let existingFolder = """
        CREATE TABLE schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL);
        INSERT INTO schema_versions VALUES ('outbox', 2), ('consumer', 4);
        CREATE TABLE outbox (stream TEXT NOT NULL, seq INTEGER NOT NULL, topic TEXT NOT NULL, envelope BLOB NOT NULL,
                             created_ms INTEGER NOT NULL, PRIMARY KEY (stream, seq)) WITHOUT ROWID;
        CREATE TABLE outbox_published (stream TEXT PRIMARY KEY, seq INTEGER NOT NULL);
        CREATE TABLE outbox_epoch (epoch TEXT NOT NULL);
        INSERT INTO outbox_epoch VALUES ('epoch-before');
        INSERT INTO outbox VALUES ('order', 7, 'order.placed.macs.', x'7b7d', 0);
        INSERT INTO outbox_published VALUES ('order', 7);
        CREATE TABLE consumer_cursors (source TEXT NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (source, stream)) WITHOUT ROWID;
        CREATE TABLE consumer_epochs (source TEXT PRIMARY KEY, epoch TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE consumer_seen_events (event_id TEXT PRIMARY KEY, at_ms INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE consumer_best_effort (source TEXT NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (source, stream)) WITHOUT ROWID;
        INSERT INTO consumer_cursors VALUES ('order-service', 'order', 41);
        INSERT INTO consumer_epochs VALUES ('order-service', 'epoch-of-order-service');
        """

    static let purged = EventBody.purged(LocationPurged(deviceId: "phone-1", reason: .denied, date: Timestamp(milliseconds: 0)))

    func tables(_ db: Database) throws -> [String] {
        try db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map { $0.string("name") }
    }

    @Test("a data folder written before the stores opens unchanged and goes on where it was")
    func existingFolderOpens() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let db = harness.db
        try db.execute(Self.existingFolder)
        let before = try tables(db)

        let outbox = try Outbox(db: db, source: "order-service", clock: ManualClock())
        let follower = try harness.follower(on: db)
        defer { follower.close() }

        // Since issue 28: the outbox became a rowid table (version 3) and the dedupe ledger keeps each
        // id until its own expiry (version 5); since issue 31 an event's rowid is its stream's
        // number and its seq, with no index beside the table (version 4). What they held is still there.
        #expect(try db.schemaVersion(of: "outbox") == 4)
        #expect(try db.schemaVersion(of: "consumer") == 5)
        #expect(try tables(db) == (before + ["outbox_streams"]).sorted())
        let outboxSQL = try db.query("SELECT sql FROM sqlite_master WHERE name = 'outbox'").first?.string("sql") ?? ""
        #expect(!outboxSQL.contains("WITHOUT ROWID") && outboxSQL.contains("id INTEGER PRIMARY KEY"))
        #expect(try db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox'").isEmpty, "no index beside the table")
        #expect(try db.query("SELECT id FROM outbox").map { $0.int64("id") } == [1 << 44 | 7], "stream 1, seq 7")
        #expect(outbox.epoch == "epoch-before")
        #expect(try outbox.lastSeq("order") == 7)
        #expect(try outbox.pendingCount() == 0)
        #expect(try outbox.replay(stream: "order", fromSeq: 7, limit: 10).map(\.seq) == [7])
        #expect((try? outbox.replay(stream: "order", fromSeq: 1, limit: 10)) == nil, "1…6 are gone: replay.pruned, not a page starting at 7")
        #expect(follower.cursor(source: "order-service", stream: "order") == 41)
        #expect(follower.receive(topic: orderTopic, envelope: orderEvent(42), raw: Data()) == .applied)
        #expect(follower.cursor(source: "order-service", stream: "order") == 42)

        // The stream keeps its number; a new stream gets the next; events read back in seq order.
        try db.transaction {
            try outbox.append(.regionPurged, topic: "t.", stream: "order", body: Self.purged)
            try outbox.append(.regionPurged, topic: "t.", stream: "kitchen", body: Self.purged)
        }
        #expect(try db.query("SELECT stream || '=' || number AS s FROM outbox_streams ORDER BY number").map { $0.string("s") } == ["order=1", "kitchen=2"])
        #expect(try outbox.replay(stream: "order", fromSeq: 7, limit: 10).map(\.seq) == [7, 8])
        #expect(try outbox.replay(stream: "kitchen", fromSeq: 1, limit: 10).map(\.seq) == [1])
        #expect(try outbox.replay(stream: "menu", fromSeq: 1, limit: 10).isEmpty)
        // A stream numbered in a transaction that rolls back is numbered again.
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try db.transaction {
                try outbox.append(.regionPurged, topic: "t.", stream: "menu", body: Self.purged)
                throw Refused()
            }
        }
        try db.transaction { try outbox.append(.regionPurged, topic: "t.", stream: "menu", body: Self.purged) }
        #expect(try outbox.replay(stream: "menu", fromSeq: 1, limit: 10).map(\.seq) == [1])
        #expect(try db.query("SELECT number FROM outbox_streams WHERE stream = 'menu'").first?.int64("number") == 3)
    }
}
