import Foundation
import SQLite
import Testing

@Suite("Migrations")
struct MigrationTests {
    static let v1 = Migration(1, "CREATE TABLE cafes (id TEXT PRIMARY KEY, name TEXT NOT NULL)")
    static let v2 = Migration(2, "ALTER TABLE cafes ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD'")
    static let v3 = Migration(3, "CREATE INDEX cafes_by_name ON cafes (name)")

    func tables(_ db: Database) throws -> [String] {
        try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'schema_versions' ORDER BY name").map { $0.string("name") }
    }

    @Test("migrations run once, in order, and record the version")
    func appliedOnce() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        #expect(try temp.db.schemaVersion(of: "order") == 0)
        // Given out of order: they are sorted by version.
        try temp.db.migrate("order", [Self.v2, Self.v1])
        #expect(try temp.db.schemaVersion(of: "order") == 2)
        try temp.db.run("INSERT INTO cafes (id, name) VALUES (?, ?)", "macs", "Caffè Macs")
        // A second run would fail ("table cafes already exists") if it re-applied anything.
        try temp.db.migrate("order", [Self.v1, Self.v2])
        #expect(try temp.db.query("SELECT currency FROM cafes").map { $0.string("currency") } == ["USD"])
    }

    @Test("reopening the file and migrating again changes nothing")
    func idempotentOnReopen() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.migrate("order", [Self.v1, Self.v2])
        try temp.db.run("INSERT INTO cafes (id, name) VALUES (?, ?)", "macs", "Caffè Macs")
        temp.db.close()

        let reopened = try temp.reopen()
        defer { reopened.close() }
        try reopened.migrate("order", [Self.v1, Self.v2])
        #expect(try reopened.schemaVersion(of: "order") == 2)
        #expect(try reopened.query("SELECT name FROM cafes").map { $0.string("name") } == ["Caffè Macs"])
    }

    @Test("a newer build applies only the steps above the recorded version")
    func upgrade() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.migrate("order", [Self.v1])
        try temp.db.run("INSERT INTO cafes (id, name) VALUES (?, ?)", "macs", "Caffè Macs")
        try temp.db.migrate("order", [Self.v1, Self.v2, Self.v3])
        #expect(try temp.db.schemaVersion(of: "order") == 3)
        #expect(try temp.db.query("SELECT id, currency FROM cafes").map { "\($0.string("id"))/\($0.string("currency"))" } == ["macs/USD"])
    }

    @Test("migrations with a gap or a duplicate number are refused and nothing is applied", arguments: [
        [MigrationTests.v1, MigrationTests.v3],
        [MigrationTests.v2, MigrationTests.v3],
        [MigrationTests.v1, Migration(1, "CREATE TABLE other (x)")],
    ])
    func gapRefused(_ migrations: [Migration]) throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let error = #expect(throws: SQLiteError.self) { try temp.db.migrate("order", migrations) }
        #expect(error?.message.contains("numbered 1, 2, 3… without gaps") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("order") == true)
        #expect(try temp.db.schemaVersion(of: "order") == 0)
        #expect(try tables(temp.db) == [])
    }

    @Test("a database migrated by a newer build is refused, not silently used")
    func newerThanCode() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.migrate("order", [Self.v1, Self.v2, Self.v3])
        let error = #expect(throws: SQLiteError.self) { try temp.db.migrate("order", [Self.v1, Self.v2]) }
        #expect(error?.message.contains("schema version 3, newer than this build (2)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(temp.path) == true)
        #expect(try temp.db.schemaVersion(of: "order") == 3)
    }

    @Test("a failing step rolls back whole: the schema stays at the last complete version")
    func failingStepRollsBack() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let broken = Migration(2, "CREATE TABLE half (x); INSERT INTO cafes (id) VALUES ('no-name')")
        #expect(throws: SQLiteError.self) { try temp.db.migrate("order", [Self.v1, broken]) }
        #expect(try temp.db.schemaVersion(of: "order") == 1)
        #expect(try tables(temp.db) == ["cafes"], "the half-applied step left no table behind")
        #expect(!temp.db.inTransaction)
        // Fixed in the next release: the step applies cleanly.
        try temp.db.migrate("order", [Self.v1, Self.v2])
        #expect(try temp.db.schemaVersion(of: "order") == 2)
    }

    @Test("components in one file version independently")
    func independentComponents() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.migrate("order", [Self.v1, Self.v2])
        try temp.db.migrate("outbox", [Migration(1, "CREATE TABLE events (seq INTEGER)")])
        #expect(try temp.db.schemaVersion(of: "order") == 2)
        #expect(try temp.db.schemaVersion(of: "outbox") == 1)
        #expect(try tables(temp.db) == ["cafes", "events"])
    }
}
