import Foundation
@testable import SQLite
import Testing

@Suite("WAL checkpoints off the committing thread")
struct WALCheckpointerTests {
    /// Polls `condition` every 10 ms for up to 10 s: the checkpointer works on its own thread.
    static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        for _ in 0..<1_000 {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return try condition()
    }

    static func walSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test("the committing connection never checkpoints; the checkpointer copies the log back and the log stays bounded")
    func backgroundCheckpoints() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.checkpointInBackground(thresholdPages: 64)
        #expect(try temp.db.query("PRAGMA wal_autocheckpoint").first?.int("wal_autocheckpoint") == 0)
        let checkpointer = try #require(temp.db.backgroundCheckpoints)
        try temp.db.execute("CREATE TABLE t (b BLOB)")
        for _ in 0..<40 {
            try temp.db.transaction { for _ in 0..<16 { try temp.db.run("INSERT INTO t VALUES (zeroblob(8192))") } }
        }
        #expect(Self.eventually { checkpointer.snapshot.runs > 0 }, "a log over 64 pages woke the checkpointer")
        // Once a checkpoint has copied the whole log, the next writer starts it over and
        // journal_size_limit (1 MiB) trims the file. A run that began before the last commit may
        // have copied only part of it, so ask again until one that began after has.
        var inserted = 0
        let trimmed = try Self.eventually {
            let before = checkpointer.snapshot.runs
            checkpointer.request()
            guard Self.eventually({ checkpointer.snapshot.runs > before }) else { return false }
            try temp.db.run("INSERT INTO t VALUES (zeroblob(16))")
            inserted += 1
            return Self.walSize(temp.path) <= 1_048_576
        }
        #expect(trimmed, "the log was restarted and trimmed: \(Self.walSize(temp.path)) bytes")
        #expect(checkpointer.snapshot.failures == 0)
        let reader = try temp.reopen()
        defer { reader.close() }
        #expect(try reader.query("SELECT COUNT(*) AS n FROM t").first?.int("n") == 640 + inserted)
    }

    @Test("checkpointSoon asks the checkpointer and returns at once; without one it checkpoints in place")
    func checkpointSoon() throws {
        let background = try TemporaryDatabase()
        defer { background.finish() }
        try background.db.checkpointInBackground()
        try background.db.execute("CREATE TABLE t (a INTEGER)")
        try background.db.run("INSERT INTO t VALUES (1)")
        let checkpointer = try #require(background.db.backgroundCheckpoints)
        try background.db.checkpointSoon()
        #expect(Self.eventually { checkpointer.snapshot.runs >= 1 }, "the request reached the thread")

        let inPlace = try TemporaryDatabase()
        defer { inPlace.finish() }
        try inPlace.db.execute("CREATE TABLE t (a INTEGER)")
        try inPlace.db.run("INSERT INTO t VALUES (1)")
        #expect(Self.walSize(inPlace.path) > 0)
        try inPlace.db.checkpointSoon()
        #expect(Self.walSize(inPlace.path) == 0, "no checkpointer: TRUNCATE on this thread, as before")
    }

    @Test("close stops the checkpointer first, so the last close folds the log in and removes it")
    func closeStopsThread() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("closing.sqlite")
        let db = try Database(path: path)
        try db.checkpointInBackground(thresholdPages: 8)
        try db.execute("CREATE TABLE t (b BLOB)")
        for _ in 0..<20 { try db.run("INSERT INTO t VALUES (zeroblob(4096))") }
        db.close()
        #expect(db.backgroundCheckpoints == nil)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the writer's close was the last: SQLite checkpointed and removed the log")
        let reopened = try Database(path: path)
        defer { reopened.close() }
        #expect(try reopened.query("SELECT COUNT(*) AS n FROM t").first?.int("n") == 20)
    }

    @Test("requests within the minimum interval are coalesced into one checkpoint; an urgent log or an explicit request is not held")
    func coalesced() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.checkpointInBackground(thresholdPages: 4, minimumInterval: 3_600, urgentPages: 200)
        let checkpointer = try #require(temp.db.backgroundCheckpoints)
        try temp.db.execute("CREATE TABLE t (b BLOB)")
        try temp.db.run("INSERT INTO t VALUES (zeroblob(32768))")
        #expect(Self.eventually { checkpointer.snapshot.runs == 1 }, "the first request over the threshold runs at once")
        // Every commit below finds the log over the threshold and asks again: held for the hour.
        for _ in 0..<20 { try temp.db.run("INSERT INTO t VALUES (zeroblob(4096))") }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(checkpointer.snapshot.runs == 1, "20 requests within the interval: still one checkpoint")
        // The log reaches the urgent size: the next checkpoint does not wait for the interval.
        try temp.db.transaction { for _ in 0..<250 { try temp.db.run("INSERT INTO t VALUES (zeroblob(4096))") } }
        #expect(Self.eventually { checkpointer.snapshot.runs == 2 }, "the log past 200 pages was checkpointed within the interval")
        // checkpointSoon (the retention timer's, a backup's) is never held either.
        try temp.db.checkpointSoon()
        #expect(Self.eventually { checkpointer.snapshot.runs == 3 })
        #expect(checkpointer.snapshot.failures == 0)
    }
}
