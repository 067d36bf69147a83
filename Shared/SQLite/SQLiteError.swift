import CSQLite

/// A failed SQLite call: the result code, SQLite's message and what we were doing.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The (extended) SQLite result code, e.g. 19 for SQLITE_CONSTRAINT.
    public let code: Int32
    /// `sqlite3_errmsg` text, or `sqlite3_errstr` when no connection exists.
    public let message: String
    /// The statement or operation that failed.
    public let context: String

    public init(code: Int32, message: String, context: String) {
        self.code = code
        self.message = message
        self.context = context
    }

    init(code: Int32, connection: OpaquePointer?, context: String) {
        let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        self.init(code: code, message: message, context: context)
    }

    /// The primary result code (the low byte of an extended code).
    public var primaryCode: Int32 { code & 0xff }
    /// A UNIQUE, CHECK, NOT NULL or foreign-key constraint refused the change.
    public var isConstraintViolation: Bool { primaryCode == SQLITE_CONSTRAINT }
    /// Another connection held the lock past the busy timeout.
    public var isBusy: Bool { primaryCode == SQLITE_BUSY }

    /// The storage itself failed (disk full, I/O error, corruption, read-only, locked past the
    /// timeout): the same change may succeed later, so it is retried, never dead-lettered.
    public var isStorageFailure: Bool {
        [SQLITE_FULL, SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_NOMEM, SQLITE_PROTOCOL,
         SQLITE_BUSY, SQLITE_LOCKED].contains(primaryCode)
    }
    /// The file is damaged or not a database.
    public var isCorruption: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }
    /// The disk (or `max_page_count`) is full.
    public var isFull: Bool { primaryCode == SQLITE_FULL }

    public var description: String { "\(context): \(message) (SQLite code \(code))" }
}
