import CSQLite
import Foundation

extension Database {
    /// Copies this database into a new file at `destination` with SQLite's online backup API,
    /// `pagesPerStep` pages at a time, calling `step(copied, total)` after each step (return
    /// false to stop; the partial file is then removed).
    ///
    /// Meant for a connection of its own, on a thread of its own, beside the connection that
    /// writes. The whole copy runs inside one read transaction on this connection: in WAL mode a
    /// reader never blocks the writer, and a backup whose source holds its snapshot is not
    /// restarted by the writer's commits (without it, each step would start from page 1 again
    /// whenever another connection had written, and a busy service would never finish). The copy
    /// is therefore the database exactly as of the moment the copy began.
    public func backup(to destination: String, pagesPerStep: Int32 = 256, step: (_ copied: Int, _ total: Int) -> Bool) throws(SQLiteError) {
        guard let source = handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "database is closed", context: "backup") }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "\(destination) exists already; a backup writes a new file", context: "backup")
        }
        var target: OpaquePointer?
        let opened = sqlite3_open_v2(destination, &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard opened == SQLITE_OK, let target else {
            let error = SQLiteError(code: opened, connection: target, context: "backup: open \(destination)")
            sqlite3_close_v2(target)
            throw error
        }
        var finished = false
        defer {
            sqlite3_close_v2(target)
            if !finished { try? FileManager.default.removeItem(atPath: destination) }
        }
        // A deferred BEGIN takes its snapshot at the first read.
        try execute("BEGIN")
        defer { try? execute("COMMIT") }
        _ = try query("SELECT count(*) AS n FROM sqlite_schema")
        guard let backup = sqlite3_backup_init(target, "main", source, "main") else {
            throw SQLiteError(code: sqlite3_errcode(target), connection: target, context: "backup: init")
        }
        var rc: Int32 = SQLITE_OK
        var stopped = false
        while true {
            rc = sqlite3_backup_step(backup, pagesPerStep)
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED {
                usleep(2_000)
                continue
            }
            guard rc == SQLITE_OK || rc == SQLITE_DONE else { break }
            let total = Int(sqlite3_backup_pagecount(backup))
            let copied = total - Int(sqlite3_backup_remaining(backup))
            if !step(copied, total), rc == SQLITE_OK {
                stopped = true
                break
            }
            if rc == SQLITE_DONE { break }
        }
        let finish = sqlite3_backup_finish(backup)
        if stopped { throw SQLiteError(code: SQLITE_INTERRUPT, message: "the backup was stopped", context: "backup") }
        guard rc == SQLITE_DONE else { throw SQLiteError(code: rc, connection: target, context: "backup: step") }
        guard finish == SQLITE_OK else { throw SQLiteError(code: finish, connection: target, context: "backup: finish") }
        finished = true
    }
}
