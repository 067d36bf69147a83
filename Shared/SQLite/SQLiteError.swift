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

    public var description: String { "\(context): \(message) (SQLite code \(code))" }
}
