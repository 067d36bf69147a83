import CSQLite
import Foundation

/// One SQLite connection, owned by one thread: WAL journal, a busy timeout, cached prepared statements.
public final class Database {
    private(set) var handle: OpaquePointer?
    /// The file this connection opened (":memory:" for an in-memory database).
    public let path: String
    private var cache: [String: Statement] = [:]
    /// The same statements by the address of their text (see `prepare`).
    private var byAddress: [UInt: Statement] = [:]
    private var transactionDepth = 0
    private var observers: [WeakTransactionObserver] = []
    /// The last failure of the storage itself (disk full, I/O, corruption), cleared by the next
    /// commit that succeeds; a constraint or a programming error is not one.
    public private(set) var storageFailure: SQLiteError?
    /// The last storage failure and when it happened (`systemUptime`), kept after a commit clears
    /// `storageFailure`: on a full disk some writes still fit, and health should not flicker.
    public private(set) var lastStorageFailure: (error: SQLiteError, uptime: Double)?
    /// Corruption was reported on this connection: it does not heal by itself.
    public private(set) var corruptionSeen = false
    /// `sqlite3_total_changes` when the outermost transaction began: a commit that wrote rows
    /// proves the storage works again, an empty one does not.
    private var changesAtBegin: Int64 = 0
    /// The thread that checkpoints this connection's log, once `checkpointInBackground()` ran.
    public internal(set) var backgroundCheckpoints: WALCheckpointer?

    // Statement journals (the undo of open savepoints: each consumer message has one) are kept
    // in memory whole (`temp_store=MEMORY`). SQLite's default keeps 64 KiB in memory, then
    // creates a temporary file: region-monitor opened, wrote, closed and unlinked 42 a second
    // while first seeing devices, 7.5% of its CPU. A limit above 64 KiB
    // (SQLITE_CONFIG_STMTJRNL_SPILL, tried at 16 MiB) made a journal past it fail with SQLITE_FULL
    // (SQLite 3.40.1); with temp_store=MEMORY the journal has no limit to pass, and a 24 MB one
    // commits or rolls back (`StatementJournalTests`). Its size is that of the pages the savepoint
    // changed, freed when it ends.

    /// Opens (creating it when `create` and it does not exist) the database at `path` in WAL
    /// mode, waiting up to `busyTimeoutMilliseconds` for locks held by other connections.
    public init(path: String, create: Bool = true, busyTimeoutMilliseconds: Int32 = 5_000) throws(SQLiteError) {
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &connection, flags, nil)
        guard rc == SQLITE_OK, let connection else {
            let error = SQLiteError(code: rc, connection: connection, context: "open \(path)")
            sqlite3_close_v2(connection)
            throw error
        }
        self.handle = connection
        self.path = path
        sqlite3_extended_result_codes(connection, 1)
        sqlite3_busy_timeout(connection, busyTimeoutMilliseconds)
        try execute("PRAGMA journal_mode=WAL")
        // NORMAL is durable across process crashes in WAL mode (only an OS crash can lose the last commit).
        try execute("PRAGMA synchronous=NORMAL")
        try execute("PRAGMA foreign_keys=ON")
        try execute("PRAGMA temp_store=MEMORY")
        // The WAL is reused, not shrunk: without a limit one burst leaves it at its largest for
        // good, and a small volume fills from the log alone. Checkpoint every 256 pages (1 MiB)
        // and truncate the log to 1 MiB after each.
        try execute("PRAGMA wal_autocheckpoint=256")
        try execute("PRAGMA journal_size_limit=1048576")
    }

    /// SQLite's `PRAGMA quick_check`: nil when the file is sound, else what is wrong (first lines).
    /// Damage bad enough that the check itself stops is reported as a problem, not thrown.
    public func quickCheckProblems() throws(SQLiteError) -> String? {
        do {
            let lines = try query("PRAGMA quick_check").map { $0.string("quick_check") }
            return lines == ["ok"] ? nil : lines.prefix(5).joined(separator: "; ")
        } catch where error.isCorruption {
            return error.message
        }
    }

    /// Caps the file at `megabytes` (`max_page_count`): a write that needs more fails with
    /// SQLITE_FULL, exactly as on a full disk.
    public func limitSize(megabytes: Int) throws(SQLiteError) {
        let pageSize = try query("PRAGMA page_size").first?.int("page_size") ?? 4096
        try execute("PRAGMA max_page_count=\(max(1, megabytes * 1_048_576 / max(pageSize, 512)))")
    }

    /// Copies the WAL into the database and truncates it to zero bytes (after a burst, when idle).
    public func checkpoint() throws(SQLiteError) {
        guard !inTransaction else { return }
        try execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// The storage failure health should report: the current one, or one within `seconds`.
    public func recentStorageFailure(within seconds: Double) -> SQLiteError? {
        if let storageFailure { return storageFailure }
        guard let last = lastStorageFailure, ProcessInfo.processInfo.systemUptime - last.uptime < seconds else { return nil }
        return last.error
    }

    /// Remembers a failure of the storage itself for health; passes any error through.
    func noted(_ error: SQLiteError) -> SQLiteError {
        if error.isStorageFailure {
            storageFailure = error
            lastStorageFailure = (error, ProcessInfo.processInfo.systemUptime)
        }
        if error.isCorruption { corruptionSeen = true }
        return error
    }

    /// The journal mode in effect ("wal" after a successful open of a file database).
    public var journalMode: String {
        get throws(SQLiteError) { try query("PRAGMA journal_mode").first?.string("journal_mode") ?? "" }
    }

    private func connection(_ context: @autoclosure () -> String) throws(SQLiteError) -> OpaquePointer {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "database is closed", context: context()) }
        return handle
    }

    /// Runs one or more SQL statements with no parameters and no results.
    public func execute(_ sql: String) throws(SQLiteError) {
        let db = try connection(sql)
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(message)
            throw noted(SQLiteError(code: rc, message: text, context: sql))
        }
    }

    /// The cached prepared statement for `sql`, compiled on first use.
    ///
    /// Found first by where the text lies: a literal's storage is the same at every call, so a
    /// hit costs an integer's hash and an `==` that sees the same storage at once. Looked up by
    /// its text, region-monitor's record upsert (560 bytes) was hashed and compared whole at each
    /// run, one per first-seen device. Any other string is checked by `==` in full,
    /// so an address reused by different text finds the right statement.
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        let address = sql.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) } ?? 0
        if address != 0, let statement = byAddress[address], statement.sql == sql { return statement }
        let statement: Statement
        if let cached = cache[sql] {
            statement = cached
        } else {
            _ = try connection(sql)
            statement = try Statement(database: self, sql: sql)
            cache[sql] = statement
        }
        if address != 0 {
            // Built text (a new address each time) must not grow this without bound.
            if byAddress.count >= Self.addressesKept { byAddress.removeAll(keepingCapacity: true) }
            byAddress[address] = statement
        }
        return statement
    }

    /// How many text addresses `prepare` remembers: more than any service's literal statements.
    static let addressesKept = 512

    /// Runs a statement with positional parameters; returns no rows.
    public func run(_ sql: String, _ values: SQLiteBindable...) throws(SQLiteError) {
        try run(sql, values: values)
    }

    /// `run` with its parameters in an array (a statement whose count of them is built).
    public func run(_ sql: String, values: [any SQLiteBindable]) throws(SQLiteError) {
        do {
            let statement = try prepare(sql)
            try statement.bind(values)
            try statement.run()
        } catch {
            throw noted(error)
        }
    }

    /// Runs a query with positional parameters and returns its rows.
    public func query(_ sql: String, _ values: SQLiteBindable...) throws(SQLiteError) -> [Row] {
        do {
            let statement = try prepare(sql)
            try statement.bind(values)
            return try statement.rows()
        } catch {
            throw noted(error)
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { handle.map { Int(sqlite3_changes($0)) } ?? 0 }

    /// The rowid of the last INSERT on this connection.
    public var lastInsertRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// Rows changed on this connection since it opened.
    var totalChanges: Int64 { handle.map { Int64(sqlite3_total_changes($0)) } ?? 0 }

    /// Prepared statements SQLite still holds for this connection (tests check nothing leaks).
    var liveStatementCount: Int {
        guard let handle else { return 0 }
        var count = 0
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            count += 1
            statement = sqlite3_next_stmt(handle, current)
        }
        return count
    }

    /// Whether a transaction is open on this connection.
    public var inTransaction: Bool { transactionDepth > 0 }

    /// Registers `observer` for every transaction level's begin, commit and rollback from now on.
    public func addTransactionObserver(_ observer: any TransactionObserver) {
        observers.removeAll { $0.observer == nil }
        observers.append(WeakTransactionObserver(observer: observer))
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// The outer level is `BEGIN IMMEDIATE` so the write lock is taken up front (no deadlock
    /// upgrading a read lock); nested calls use savepoints.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        let depth = transactionDepth
        let savepoint = "sp\(depth)"
        // Prepared once and cached: a savepoint per message must not pay for parsing SQL.
        try run(depth == 0 ? "BEGIN IMMEDIATE" : "SAVEPOINT \(savepoint)")
        if depth == 0 { changesAtBegin = totalChanges }
        transactionDepth += 1
        for entry in observers { entry.observer?.transactionBegan(depth: depth + 1) }
        do {
            let result = try body()
            if depth == 0 {
                for entry in observers { try entry.observer?.transactionWillCommit() }
            }
            try run(depth == 0 ? "COMMIT" : "RELEASE \(savepoint)")
            transactionDepth -= 1
            if depth == 0, totalChanges > changesAtBegin { storageFailure = nil }
            for entry in observers { entry.observer?.transactionCommitted(depth: depth + 1) }
            return result
        } catch {
            transactionDepth = depth
            if depth == 0 {
                try? run("ROLLBACK")
            } else {
                try? run("ROLLBACK TO \(savepoint)")
                try? run("RELEASE \(savepoint)")
            }
            for entry in observers { entry.observer?.transactionRolledBack(depth: depth + 1) }
            throw error
        }
    }

    /// Frees what this connection's page cache and lookaside hold (`sqlite3_db_release_memory`).
    public func releaseMemory() {
        if let handle { sqlite3_db_release_memory(handle) }
    }

    /// Finalizes every statement and closes the connection. Safe to call twice.
    public func close() {
        guard let handle else { return }
        if let backgroundCheckpoints {
            sqlite3_wal_hook(handle, nil, nil)
            backgroundCheckpoints.stop()
            self.backgroundCheckpoints = nil
        }
        for statement in cache.values { statement.finalize() }
        cache.removeAll()
        byAddress.removeAll()
        sqlite3_close_v2(handle)
        self.handle = nil
    }

    deinit { close() }
}
