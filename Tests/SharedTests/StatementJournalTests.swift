import Foundation
import SQLite
import Testing

/// A savepoint's undo (the statement journal) larger than memory holds spills to a file and
/// commits. With the journal configured to stay in memory up to 16 MiB (SQLite 3.40.1), one
/// past that failed with SQLITE_FULL instead: a consumer batch or an operator's bulk change of
/// that size would have been refused as a full disk.
@Suite struct StatementJournalTests {
    @Test("a nested transaction whose undo outgrows 16 MiB commits, and one that throws rolls back whole")
    func largeSavepoint() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = try Database(path: folder.appendingPathComponent("journal.sqlite").path)
        defer { db.close() }
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL)")
        // About 24 MB of pages, every one of which the update below changes.
        try db.transaction {
            for id in 0..<6_000 { try db.run("INSERT INTO t (id, v) VALUES (?, zeroblob(4000))", id) }
        }
        try db.transaction {
            try db.transaction { try db.run("UPDATE t SET v = zeroblob(4001)") }
        }
        #expect(try db.query("SELECT COUNT(*) AS n FROM t WHERE length(v) = 4001").first?.int("n") == 6_000)

        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try db.transaction {
                try db.transaction {
                    try db.run("UPDATE t SET v = zeroblob(4002)")
                    throw Refused()
                }
            }
        }
        #expect(try db.query("SELECT COUNT(*) AS n FROM t WHERE length(v) = 4001").first?.int("n") == 6_000)
    }
}
