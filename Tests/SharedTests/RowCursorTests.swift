import Foundation
@testable import SQLite
import Testing

@Suite("Rows read as they are stepped (RowCursor)")
struct RowCursorTests {
    @Test("each row by column index: integers, NULLs, text holding U+0000 and non-ASCII, in order; nothing kept between rows")
    func readsRows() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, n INTEGER, s TEXT)")
        try temp.db.run("INSERT INTO t VALUES (1, 7, ?)", "a\u{0}b-é")
        try temp.db.run("INSERT INTO t VALUES (2, NULL, NULL)")
        try temp.db.run("INSERT INTO t VALUES (3, -1, '')")
        var seen: [String] = []
        try temp.db.forEachRow("SELECT k, n, s FROM t WHERE k >= ? ORDER BY k", 1) { row in
            let bytes = row.withText(2) { Array($0) }
            seen.append("\(row.int64(0)) \(row.optionalInt64(1).map(String.init) ?? "nil") \(row.optionalString(2) ?? "nil") \(bytes?.count ?? -1) \(row.isNull(2))")
        }
        #expect(seen == ["1 7 a\u{0}b-é 6 false", "2 nil nil -1 true", "3 -1  0 false"])
        // The statement was reset: the same query runs again, with other bindings.
        var count = 0
        try temp.db.forEachRow("SELECT k, n, s FROM t WHERE k >= ? ORDER BY k", 3) { _ in count += 1 }
        #expect(count == 1)
    }

    @Test("an error in the SQL or thrown by the body reaches the caller, and the statement can run again")
    func errors() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (k INTEGER)")
        try temp.db.run("INSERT INTO t VALUES (1)")
        try temp.db.run("INSERT INTO t VALUES (2)")
        #expect(throws: SQLiteError.self) { try temp.db.forEachRow("SELECT nope FROM t") { _ in } }
        struct Stop: Error {}
        var visited = 0
        #expect(throws: Stop.self) {
            try temp.db.forEachRow("SELECT k FROM t") { _ in
                visited += 1
                throw Stop()
            }
        }
        #expect(visited == 1, "the body's error ends the walk")
        var all: [Int64] = []
        try temp.db.forEachRow("SELECT k FROM t") { all.append($0.int64(0)) }
        #expect(all == [1, 2])
    }
}
