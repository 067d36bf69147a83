import CSQLite
import Foundation

/// Copies a database's write-ahead log back into it on a thread of its own, with a connection of
/// its own, so the thread that commits never waits for the disk.
///
/// In WAL mode with `synchronous=NORMAL` a commit appends to the log and does not sync; the syncs
/// happen at checkpoints. SQLite's automatic checkpoint runs inside the commit that crosses its
/// threshold, on the committing thread: on a disk that is busy with someone else's writes, one
/// `fdatasync` took 0.1–1.8 s here, and a service's reactor stood still for as long (a region
/// timer "stalled" for 3 s). So the owning connection turns automatic checkpoints off and its WAL
/// hook (called after each commit with the log's size in pages) wakes this thread once the log
/// holds `thresholdPages`; the thread runs a PASSIVE checkpoint, which takes no lock a writer
/// waits for: writers go on appending while it copies and syncs. Once it has copied the whole
/// log, the next writer starts the log over and `journal_size_limit` trims the file.
///
/// Under continuous writes the log is over the threshold after nearly every commit (a PASSIVE
/// checkpoint copies the log as it was when it began; what was appended meanwhile waits for the
/// next one), so the requests are coalesced: one checkpoint per `minimumInterval` at most, unless
/// the log has reached `urgentPages`. Run back to back, region-monitor at 50,000 sightings/s did
/// 2,332 checkpoints in 15 s, each with its two syncs, and its own writes waited on the pages
/// being written back.
public final class WALCheckpointer: @unchecked Sendable {
    /// The log's size, in pages, at which a checkpoint is asked for.
    public let thresholdPages: Int32
    /// The shortest time from the end of one checkpoint to the start of the next.
    public let minimumInterval: Double
    /// The log's size, in pages, past which a checkpoint runs without waiting for the interval.
    public let urgentPages: Int32
    private let path: String
    /// The log's size at the latest request; a request without a size (`checkpointSoon`) is urgent.
    private var requestedPages: Int32 = 0
    private var lastEnd = -Double.infinity
    private let condition = NSCondition()
    private var requested = false
    private var stopped = false
    private var running = false
    private var counts = Counts()

    /// What the thread has done, for health.
    public struct Counts: Sendable {
        /// Checkpoints run.
        public var runs = 0
        /// Checkpoints that failed (busy or an I/O error); the next request tries again.
        public var failures = 0
        /// The slowest checkpoint, in seconds: what a committing thread no longer waits for.
        public var slowestSeconds = 0.0
    }

    init(path: String, thresholdPages: Int32, minimumInterval: Double, urgentPages: Int32) {
        self.path = path
        self.thresholdPages = thresholdPages
        self.minimumInterval = minimumInterval
        self.urgentPages = max(urgentPages, thresholdPages)
    }

    /// What the thread has done so far.
    public var snapshot: Counts { condition.withLock { counts } }

    /// Opens the thread's own connection and starts it; throws when the file cannot be opened.
    func start() throws(SQLiteError) {
        var connection: OpaquePointer?
        let rc = sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let connection else {
            let error = SQLiteError(code: rc, connection: connection, context: "open \(path) for checkpoints")
            sqlite3_close_v2(connection)
            throw error
        }
        // A checkpoint that finds the checkpoint lock held (another process restoring, a manual
        // TRUNCATE) gives up at once: it is asked again at the next commit.
        sqlite3_busy_timeout(connection, 0)
        condition.withLock { running = true }
        let handle = UncheckedConnection(connection)
        let thread = Thread { [self] in run(handle.connection) }
        thread.name = "sqlite checkpoints"
        thread.start()
    }

    /// Asks for a checkpoint now (a timer's or an operator's request: not coalesced).
    public func request() {
        request(pages: .max)
    }

    /// Asks for a checkpoint of a log of `pages` pages; cheap, called from the writer's WAL hook
    /// after a commit. Coalesced with the requests before it until `minimumInterval` has passed
    /// since the last checkpoint, unless `pages` has reached `urgentPages`.
    func request(pages: Int32) {
        condition.withLock {
            // The thread waits untimed when nothing was asked, timed while coalescing: it is woken
            // for the first request and when the log turns urgent, not at every commit.
            let wasRequested = requested, wasUrgent = requestedPages >= urgentPages
            requested = true
            requestedPages = max(requestedPages, pages)
            if !wasRequested || (!wasUrgent && requestedPages >= urgentPages) { condition.signal() }
        }
    }

    /// Stops the thread and closes its connection; returns once it has.
    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
            while running { condition.wait() }
        }
    }

    private func run(_ connection: OpaquePointer) {
        defer {
            sqlite3_close_v2(connection)
            condition.withLock {
                running = false
                condition.broadcast()
            }
        }
        while true {
            let go: Bool = condition.withLock {
                while !stopped {
                    if requested {
                        let due = lastEnd + minimumInterval
                        let now = ProcessInfo.processInfo.systemUptime
                        if now >= due || requestedPages >= urgentPages { break }
                        _ = condition.wait(until: Date(timeIntervalSinceNow: due - now))
                    } else {
                        condition.wait()
                    }
                }
                requested = false
                requestedPages = 0
                return !stopped
            }
            guard go else { return }
            let start = ProcessInfo.processInfo.systemUptime
            let rc = Self.checkpoint(connection)
            let seconds = ProcessInfo.processInfo.systemUptime - start
            condition.withLock {
                lastEnd = ProcessInfo.processInfo.systemUptime
                counts.runs += 1
                if rc != SQLITE_OK { counts.failures += 1 }
                counts.slowestSeconds = max(counts.slowestSeconds, seconds)
            }
        }
    }

    /// One PASSIVE checkpoint, as SQL: preparing it reads the schema, which opens this
    /// connection's view of the WAL (`sqlite3_wal_checkpoint_v2` on a connection that has not
    /// read since it opened finds no log to copy and reports success). SQLITE_OK, or the error.
    static func checkpoint(_ connection: OpaquePointer) -> Int32 {
        var statement: OpaquePointer?
        var rc = sqlite3_prepare_v2(connection, "PRAGMA wal_checkpoint(PASSIVE)", -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { return rc }
        defer { sqlite3_finalize(statement) }
        rc = sqlite3_step(statement)
        guard rc == SQLITE_ROW else { return rc }
        // Columns: busy, log pages, pages copied; busy means another checkpoint ran meanwhile.
        return sqlite3_column_int(statement, 0) == 0 ? SQLITE_OK : SQLITE_BUSY
    }

    /// A connection handed to the thread that alone uses it from then on.
    private struct UncheckedConnection: @unchecked Sendable {
        let connection: OpaquePointer
        init(_ connection: OpaquePointer) { self.connection = connection }
    }
}

extension Database {
    /// Moves this connection's checkpoints to a `WALCheckpointer`: automatic checkpoints off, and
    /// a WAL hook that asks the checkpointer once the log holds `thresholdPages` (256, 1 MiB, as
    /// `wal_autocheckpoint` did), at most once per `minimumInterval` (0.1 s) unless the log has
    /// reached `urgentPages` (16 MiB). `checkpointSoon()` then asks it too, and `close()` stops
    /// it first. For a file database owned by a thread that must not wait for the disk.
    public func checkpointInBackground(thresholdPages: Int32 = 256, minimumInterval: Double = 0.1,
                                       urgentPages: Int32 = 4_096) throws(SQLiteError) {
        guard backgroundCheckpoints == nil, path != ":memory:" else { return }
        let checkpointer = WALCheckpointer(path: path, thresholdPages: thresholdPages, minimumInterval: minimumInterval,
                                           urgentPages: urgentPages)
        try checkpointer.start()
        try execute("PRAGMA wal_autocheckpoint=0")
        backgroundCheckpoints = checkpointer
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "database is closed", context: "wal hook") }
        sqlite3_wal_hook(handle, { context, _, _, pages in
            guard let context else { return SQLITE_OK }
            let checkpointer = Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue()
            if pages >= checkpointer.thresholdPages { checkpointer.request(pages: pages) }
            return SQLITE_OK
        }, Unmanaged.passUnretained(checkpointer).toOpaque())
    }

    /// Folds the log back into the database without making this thread wait: asks the background
    /// checkpointer when there is one (its PASSIVE checkpoint; the log is trimmed to
    /// `journal_size_limit` when the next writer starts it over), else `checkpoint()`.
    public func checkpointSoon() throws(SQLiteError) {
        if let backgroundCheckpoints {
            backgroundCheckpoints.request()
        } else {
            try checkpoint()
        }
    }
}
