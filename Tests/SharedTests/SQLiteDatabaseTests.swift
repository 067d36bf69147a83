import Foundation
@testable import SQLite
import Testing

/// A database in a fresh temporary folder, closed and removed by `finish()`.
struct TemporaryDatabase {
    let folder: TemporaryDirectory
    let db: Database
    var path: String { db.path }

    init(name: String = "test.sqlite") throws {
        folder = try TemporaryDirectory()
        db = try Database(path: folder.path(name))
    }

    func reopen() throws -> Database { try Database(path: db.path) }

    func finish() {
        db.close()
        folder.remove()
    }
}

struct Boom: Error, Equatable {}

@Suite("SQLite database")
struct SQLiteDatabaseTests {
    @Test("a file database opens in WAL mode and writes through the -wal file")
    func walMode() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        #expect(try temp.db.journalMode == "wal")
        try temp.db.execute("CREATE TABLE t (x INTEGER)")
        try temp.db.run("INSERT INTO t (x) VALUES (?)", 1)
        #expect(FileManager.default.fileExists(atPath: temp.path + "-wal"))
        #expect(try temp.db.query("PRAGMA foreign_keys").first?.int("foreign_keys") == 1)
    }

    @Test("a statement is found by its text's address only when the text is the same; built texts past the bound still find theirs")
    func statementsByAddress() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (x INTEGER)")
        let literal = try temp.db.prepare("SELECT x FROM t WHERE x = ?")
        #expect(try temp.db.prepare("SELECT x FROM t WHERE x = ?") === literal, "a literal's statement is reused")
        try temp.db.run("INSERT INTO t (x) VALUES (?)", 7)
        // Built texts: each a fresh heap string, whose address a later one may reuse once it is freed.
        for round in 0..<(Database.addressesKept * 2 + 3) {
            let value = round % 3 == 0 ? 7 : round
            let sql = "SELECT x FROM t WHERE x = " + String(value) + " AND " + String(round % 5) + " = " + String(round % 5)
            let statement = try temp.db.prepare(sql)
            #expect(statement.sql == sql)
            #expect(try temp.db.query(sql).count == (value == 7 ? 1 : 0), "\(sql)")
        }
        #expect(try temp.db.prepare("SELECT x FROM t WHERE x = ?") === literal)
        #expect(try temp.db.query("SELECT x FROM t WHERE x = ?", 7).count == 1)
    }

    @Test("text and blobs bound in place read back exactly: those that fit the statement's scratch space and those past it, rebound many times")
    func boundInPlace() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b BLOB, c TEXT)")
        // Sizes around the scratch space: all fit, the last one does not, none does; then small again.
        let sizes = [(10, 20, 30), (1_000, 2_000, 1_000), (3_000, 1_000, 500), (5_000, 10, 10), (0, 0, 0), (7, 4_096, 1)]
        for round in 0..<3 {
            for (i, size) in sizes.enumerated() {
                let id = round * 100 + i
                let a = String(repeating: Character(UnicodeScalar(UInt8(97 + i))), count: size.0)
                let b = Data((0..<size.1).map { UInt8(($0 + i) % 251) })
                let c = String(repeating: "é", count: size.2 / 2) + "\u{0}" + "z"
                try temp.db.run("INSERT INTO t (id, a, b, c) VALUES (?, ?, ?, ?)", id, a, b, c)
                let row = try #require(try temp.db.query("SELECT a, b, c FROM t WHERE id = ?", id).first)
                #expect(row.string("a") == a && row.data("b") == b && row.string("c") == c, "round \(round), sizes \(size)")
            }
        }
    }

    @Test("every SQLiteValue kind binds and reads back exactly", arguments: [
        SQLiteValue.null,
        .integer(0), .integer(42), .integer(Int64.max), .integer(Int64.min),
        .real(3.25), .real(-0.1), .real(1e300),
        .text(""), .text("Caffè Macs ☕️ 渋谷"), .text("line\nbreak \"quoted\""), .text("nul\u{0}inside"),
        .blob(Data()), .blob(Data([7, 8]).dropFirst(2)), .blob(Data(capacity: 64)), .blob(Data([0, 1, 2, 0, 255])), .blob(Data(repeating: 0xAB, count: 100_000)),
    ])
    func valueRoundTrip(_ value: SQLiteValue) throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (v)")
        try temp.db.run("INSERT INTO t (v) VALUES (?)", value)
        let rows = try temp.db.query("SELECT v, typeof(v) AS kind FROM t")
        #expect(rows.count == 1)
        #expect(rows.first?.values.first == value)
        let kind = switch value {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
        #expect(rows.first?.string("kind") == kind, "stored with SQLite type \(kind)")
    }

    @Test("Swift types bind to the SQLite type their readers expect")
    func typedBindAndRead() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (i INTEGER, i64 INTEGER, i32 INTEGER, u64 INTEGER, b INTEGER, d REAL, s TEXT, data BLOB, none TEXT, some TEXT)")
        let blob = Data([0xDE, 0xAD, 0x00, 0xBE, 0xEF])
        let none: String? = nil
        let some: String? = "here"
        try temp.db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        7, Int64(-9_000_000_000), Int32(-5), UInt64(123_456_789_012), true, 2.5, "Zürich", blob, none, some)
        let row = try #require(try temp.db.query("SELECT * FROM t").first)
        #expect(row.int("i") == 7)
        #expect(row.int64("i64") == -9_000_000_000)
        #expect(row.int("i32") == -5)
        #expect(UInt64(row.int64("u64")) == 123_456_789_012)
        #expect(row.bool("b"))
        #expect(row.double("d") == 2.5)
        #expect(row.string("s") == "Zürich")
        #expect(row.data("data") == blob)
        #expect(row.isNull("none"))
        #expect(row.optionalString("none") == nil)
        #expect(row.string("none") == "")
        #expect(row.optionalInt64("none") == nil)
        #expect(row.optionalString("some") == "here")
        #expect(row.values == [.integer(7), .integer(-9_000_000_000), .integer(-5), .integer(123_456_789_012), .integer(1),
                               .real(2.5), .text("Zürich"), .blob(blob), .null, .text("here")])
    }

    @Test("each Swift type binds itself exactly as its SQLiteValue would bind")
    func selfBindingMatchesValue() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let none: String? = nil, someData: Data? = Data([1, 2]), noneInt: Int64? = nil, someInt: Int? = 3
        let values: [any SQLiteBindable] = [
            0, -7, Int.max, Int64.min, Int64(9), Int32(-5), UInt64(12), UInt64.max, true, false, 2.5, -0.0,
            "", "Caffè Macs ☕️", "nul\u{0}inside", String(repeating: "x", count: 5_000), Data(), Data([0, 1, 255]),
            Data(repeating: 0xAB, count: 5_000), none, someData, noneInt, someInt, SQLiteValue.null, SQLiteValue.text("t"),
        ]
        for value in values {
            // Bound by the type itself (`bind(to:at:)`) and by its value, read back as SQLite has them.
            let direct = try temp.db.query("SELECT typeof(?1) AS kind, quote(?1) AS text", value).first
            let viaValue = try temp.db.query("SELECT typeof(?1) AS kind, quote(?1) AS text", value.sqliteValue).first
            #expect(direct?.values == viaValue?.values, "\(type(of: value)) \(value)")
        }
    }

    @Test("a transaction commits when its body returns")
    func transactionCommits() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (x INTEGER)")
        let result = try temp.db.transaction {
            #expect(temp.db.inTransaction)
            try temp.db.run("INSERT INTO t VALUES (?)", 1)
            try temp.db.run("INSERT INTO t VALUES (?)", 2)
            return "done"
        }
        #expect(result == "done")
        #expect(!temp.db.inTransaction)
        let other = try temp.reopen()
        defer { other.close() }
        #expect(try other.query("SELECT COUNT(*) AS n FROM t").first?.int("n") == 2, "visible to another connection")
    }

    @Test("a transaction whose body throws leaves nothing half-written")
    func transactionRollsBack() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (x INTEGER)")
        try temp.db.run("INSERT INTO t VALUES (?)", 0)
        #expect(throws: Boom.self) {
            try temp.db.transaction {
                try temp.db.run("INSERT INTO t VALUES (?)", 1)
                try temp.db.run("UPDATE t SET x = 99")
                throw Boom()
            }
        }
        #expect(!temp.db.inTransaction)
        #expect(try temp.db.query("SELECT x FROM t").map { $0.int("x") } == [0])
        // The connection is usable again: the next transaction commits normally.
        try temp.db.transaction { try temp.db.run("INSERT INTO t VALUES (?)", 2) }
        #expect(try temp.db.query("SELECT x FROM t ORDER BY x").map { $0.int("x") } == [0, 2])
    }

    @Test("a nested transaction is a savepoint: its rollback keeps the outer work")
    func nestedSavepointRollback() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (x TEXT)")
        try temp.db.transaction {
            try temp.db.run("INSERT INTO t VALUES (?)", "outer-before")
            #expect(throws: Boom.self) {
                try temp.db.transaction {
                    try temp.db.run("INSERT INTO t VALUES (?)", "inner")
                    throw Boom()
                }
            }
            #expect(temp.db.inTransaction, "the outer transaction is still open")
            try temp.db.transaction { try temp.db.run("INSERT INTO t VALUES (?)", "inner-ok") }
            try temp.db.run("INSERT INTO t VALUES (?)", "outer-after")
        }
        #expect(try temp.db.query("SELECT x FROM t ORDER BY rowid").map { $0.string("x") } == ["outer-before", "inner-ok", "outer-after"])
    }

    @Test("an outer rollback discards the work of inner transactions that succeeded")
    func outerRollbackDiscardsInner() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (x TEXT)")
        #expect(throws: Boom.self) {
            try temp.db.transaction {
                try temp.db.transaction { try temp.db.run("INSERT INTO t VALUES (?)", "inner") }
                throw Boom()
            }
        }
        #expect(try temp.db.query("SELECT COUNT(*) AS n FROM t").first?.int("n") == 0)
    }

    @Test("a constraint violation carries SQLite's extended code and message", arguments: [
        ("INSERT INTO t (k, u, v) VALUES ('a', 'other', 'again')", Int32(1555), "UNIQUE constraint failed: t.k"),
        ("INSERT INTO t (k, u, v) VALUES ('b', 'ua', 'again')", Int32(2067), "UNIQUE constraint failed: t.u"),
        ("INSERT INTO t (k, u, v) VALUES ('c', 'uc', NULL)", Int32(1299), "NOT NULL constraint failed: t.v"),
        ("INSERT INTO t (k, u, v) VALUES ('d', 'ud', 'x')", Int32(275), "CHECK constraint failed"),
    ])
    func constraintError(sql: String, code: Int32, message: String) throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, u TEXT UNIQUE, v TEXT NOT NULL CHECK (length(v) > 1))")
        try temp.db.run("INSERT INTO t (k, u, v) VALUES (?, ?, ?)", "a", "ua", "first")
        let error = #expect(throws: SQLiteError.self) { try temp.db.run(sql) }
        #expect(error?.code == code)
        #expect(error?.primaryCode == 19)
        #expect(error?.isConstraintViolation == true)
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
        #expect(error?.context == sql)
        #expect(error?.description.contains("(SQLite code \(code))") == true)
        #expect(try temp.db.query("SELECT COUNT(*) AS n FROM t").first?.int("n") == 1)
    }

    @Test("SQL that does not compile names the statement and SQLite's reason")
    func syntaxError() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let error = #expect(throws: SQLiteError.self) { try temp.db.query("SELEKT 1") }
        #expect(error?.code == 1)
        #expect(error?.message.contains("syntax error") == true)
        #expect(error?.context == "prepare: SELEKT 1")
    }

    @Test("binding the wrong number of parameters is refused before running")
    func parameterCount() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (a, b)")
        let error = #expect(throws: SQLiteError.self) { try temp.db.run("INSERT INTO t VALUES (?, ?)", 1) }
        #expect(error?.code == 25)
        #expect(error?.message == "expected 2 parameters, got 1")
    }

    @Test("a writer blocked past the busy timeout gets isBusy, not a hang")
    func busyTimeout() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (x)")
        let other = try Database(path: temp.path, busyTimeoutMilliseconds: 50)
        defer { other.close() }
        try temp.db.execute("BEGIN IMMEDIATE")
        let error = #expect(throws: SQLiteError.self) { try other.transaction { try other.run("INSERT INTO t VALUES (?)", 1) } }
        #expect(error?.isBusy == true)
        try temp.db.execute("COMMIT")
        try other.transaction { try other.run("INSERT INTO t VALUES (?)", 1) }
    }

    @Test("prepared statements are cached per SQL text and reusable after an error")
    func statementCache() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
        let sql = "INSERT INTO t (k) VALUES (?)"
        #expect(try temp.db.prepare(sql) === temp.db.prepare(sql))
        try temp.db.run(sql, "a")
        #expect(throws: SQLiteError.self) { try temp.db.run(sql, "a") }
        try temp.db.run(sql, "b")
        #expect(temp.db.changes == 1)
        #expect(try temp.db.query("SELECT k FROM t ORDER BY k").map { $0.string("k") } == ["a", "b"])
    }

    @Test("a statement dropped without close() is finalized by its deinit; one held past close() is finalized once")
    func statementDeinit() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        #expect(temp.db.liveStatementCount == 0)
        do {
            // Outside the cache: nothing but its own deinit finalizes it.
            let statement = try Statement(database: temp.db, sql: "SELECT 1 AS one")
            #expect(try statement.rows().first?.int("one") == 1)
            #expect(temp.db.liveStatementCount == 1)
        }
        #expect(temp.db.liveStatementCount == 0, "the dropped statement was finalized")
        #expect(try temp.db.query("SELECT 2 AS two").first?.int("two") == 2)
        #expect(temp.db.liveStatementCount == 1, "a cached statement lives until close()")
        // close() finalizes it; its deinit, after the test lets go of it, must not do so again.
        let held = try temp.db.prepare("SELECT 2 AS two")
        temp.db.close()
        #expect(held.sql == "SELECT 2 AS two")
    }

    @Test("a closed database refuses calls with SQLITE_MISUSE; closing twice is harmless")
    func closedDatabase() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        temp.db.close()
        temp.db.close()
        let error = #expect(throws: SQLiteError.self) { try temp.db.execute("SELECT 1") }
        #expect(error?.code == 21)
        #expect(error?.message == "database is closed")
        #expect(throws: SQLiteError.self) { try temp.db.query("SELECT 1") }
    }

    @Test("a path that cannot be opened is an error naming it")
    func unopenable() throws {
        let error = #expect(throws: SQLiteError.self) { try Database(path: "/nonexistent-folder-\(UUID().uuidString)/x.sqlite") }
        #expect(error?.code == 14)
        #expect(error?.context.hasPrefix("open /nonexistent-folder-") == true)
    }
}
