import Foundation
import Messages
import OrderCore
@testable import OrderServer
import SQLite
import Testing
import TestSupport

/// order-service's schema version 3 (issue 30, disk per order): a data folder written at version 2
/// opens with what it held, the idempotency table as a rowid table and the audit rows keyed by
/// their order, in the order they were written.
@Suite("order-service storage migration")
struct OrderStoreMigrationTests {
    @Test("version 2 data moves to version 3 whole: keys with their replies, audit rows in order, no separate audit index")
    func fromVersion2() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("order-migration-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = try Database(path: folder.appendingPathComponent("order-service.sqlite").path)
        defer { db.close() }
        try db.migrate("order-service", Array(OrderStore.migrations.prefix(2)))
        try db.execute("""
            INSERT INTO idempotency (key, request, reply, created_ms) VALUES ('key-0001', '{}', x'7b7d', 5);
            INSERT INTO order_audit (order_id, from_state, to_state, actor, reason, at_ms) VALUES ('ord-a', NULL, 'placed', 'customer', NULL, 1);
            INSERT INTO order_audit (order_id, from_state, to_state, actor, reason, at_ms) VALUES ('ord-b', NULL, 'placed', 'customer', NULL, 2);
            INSERT INTO order_audit (order_id, from_state, to_state, actor, reason, at_ms) VALUES ('ord-a', 'placed', 'accepted', 'system', 'paid', 3);
            """)
        let store = OrderStore(db: db)
        try store.migrate()
        #expect(try db.schemaVersion(of: "order-service") == 4, "and on to version 4 (device_away, for pacing)")
        #expect(try store.idempotency("key-0001")?.reply == Data("{}".utf8))
        #expect(try store.history("ord-a", current: .accepted).map(\.to) == [.placed, .accepted])
        #expect(try store.history("ord-b", current: .placed).map(\.at) == [Timestamp(milliseconds: 2)])
        let indexes = try db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'order_audit'").map { $0.string("name") }
        #expect(!indexes.contains("order_audit_order"))
        let idempotencySQL = try db.query("SELECT sql FROM sqlite_master WHERE name = 'idempotency'").first?.string("sql") ?? ""
        #expect(!idempotencySQL.contains("WITHOUT ROWID"))
    }
}
