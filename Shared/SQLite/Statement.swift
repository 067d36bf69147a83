import CSQLite
import Foundation

/// A prepared statement: compiled once, bound, stepped, reset for the next use.
public final class Statement {
    let handle: OpaquePointer
    unowned let database: Database
    public let sql: String
    /// Set once the handle is given back to SQLite, by `Database.close()` or by `deinit`.
    private var finalized = false
    /// A binding longer than `largeBinding` is held (see `prepareBinding`).
    private var holdsLargeBinding = false
    /// Where text and blobs that fit are copied as they are bound, for SQLite to read in place
    /// (SQLITE_STATIC) until the statement is bound again: SQLite's own copy (SQLITE_TRANSIENT)
    /// is a malloc and a free per value (callgrind: 8,400 instructions of a region-monitor
    /// first-seen device's four statements, most of their binding). Allocated at the first
    /// binding that uses it, `scratchBytes` long; what does not fit is copied by SQLite as before.
    private var scratch: UnsafeMutableRawPointer?
    private var scratchUsed = 0
    static let scratchBytes = 4_096
    private lazy var columns: [String: Int] = {
        var map: [String: Int] = [:]
        for i in 0..<sqlite3_column_count(handle) {
            map[String(cString: sqlite3_column_name(handle, i))] = Int(i)
        }
        return map
    }()

    init(database: Database, sql: String) throws(SQLiteError) {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(database.handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw SQLiteError(code: rc, connection: database.handle, context: "prepare: \(sql)")
        }
        self.handle = statement
        self.database = database
        self.sql = sql
    }

    /// Binds positional parameters (`?`) in order, replacing earlier bindings. Each value binds
    /// itself: an array of `SQLiteValue`s made first (with the existentials' copies) was about
    /// 4,000 instructions of each of region-monitor's statements.
    public func bind(_ values: [any SQLiteBindable]) throws(SQLiteError) {
        try prepareBinding(count: values.count)
        for offset in values.indices { try values[offset].bind(to: self, at: Int32(offset + 1)) }
    }

    /// Resets the statement for new values: every parameter is bound again (the count is checked),
    /// so earlier bindings are only cleared when one was large text or a blob, whose copy SQLite
    /// would keep until then.
    private func prepareBinding(count: Int) throws(SQLiteError) {
        sqlite3_reset(handle)
        // Every parameter is bound again below, so nothing SQLite holds points into it any more.
        scratchUsed = 0
        if holdsLargeBinding {
            sqlite3_clear_bindings(handle)
            holdsLargeBinding = false
        }
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard count == expected else {
            throw SQLiteError(code: SQLITE_RANGE, message: "expected \(expected) parameters, got \(count)", context: sql)
        }
    }

    /// Text or a blob longer than this is let go once the statement is bound again.
    static let largeBinding = 4_096

    /// Binds `value` as parameter `index`.
    func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let v): try bindInteger(v, at: index)
        case .real(let v): try checked(sqlite3_bind_double(handle, index, v), index)
        case .text(let s): try bindText(s, at: index)
        case .blob(let d): try bindBlob(d, at: index)
        }
    }

    // Each value type binds itself through these (`SQLiteBindable.bind(to:at:)`), not by making
    // its `SQLiteValue` first: the enum's copies, retains and Optional's generic witness were about
    // 2,500 instructions of a region-monitor first-seen device's binding.

    func bindNull(at index: Int32) throws(SQLiteError) {
        try checked(sqlite3_bind_null(handle, index), index)
    }

    func bindInteger(_ value: Int64, at index: Int32) throws(SQLiteError) {
        try checked(sqlite3_bind_int64(handle, index, value), index)
    }

    func bindText(_ value: String, at index: Int32) throws(SQLiteError) {
        // Bound with its UTF-8 byte count, not -1 (NUL-terminated): a string holding U+0000
        // (valid in JSON as "\u0000") must not be cut short at it.
        var text = value
        let rc = text.withUTF8 { utf8 in
            if utf8.count > Self.largeBinding { holdsLargeBinding = true }
            // A nil pointer would bind NULL, so an empty string is bound from a literal.
            guard let base = utf8.baseAddress, !utf8.isEmpty else {
                return sqlite3_bind_text(handle, index, "", 0, cafe_sqlite_transient())
            }
            if let kept = keep(UnsafeRawBufferPointer(utf8)) {
                return sqlite3_bind_text(handle, index, kept.assumingMemoryBound(to: CChar.self), Int32(utf8.count), nil)
            }
            return sqlite3_bind_text(handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                                     Int32(utf8.count), cafe_sqlite_transient())
        }
        try checked(rc, index)
    }

    func bindBlob(_ value: Data, at index: Int32) throws(SQLiteError) {
        if value.count > Self.largeBinding { holdsLargeBinding = true }
        let rc = value.withUnsafeBytes { bytes in
            if !bytes.isEmpty, let kept = keep(bytes) { return sqlite3_bind_blob(handle, index, kept, Int32(bytes.count), nil) }
            return sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), cafe_sqlite_transient())
        }
        try checked(rc, index)
    }

    @inline(__always)
    private func checked(_ rc: Int32, _ index: Int32) throws(SQLiteError) {
        if rc != SQLITE_OK { throw SQLiteError(code: rc, connection: database.handle, context: "bind \(index): \(sql)") }
    }

    /// Runs the statement to completion, returning every row.
    public func rows() throws(SQLiteError) -> [Row] {
        defer { sqlite3_reset(handle) }
        var result: [Row] = []
        while true {
            let rc = sqlite3_step(handle)
            if rc == SQLITE_DONE { return result }
            guard rc == SQLITE_ROW else { throw SQLiteError(code: rc, connection: database.handle, context: sql) }
            result.append(currentRow())
        }
    }

    /// Runs a statement that returns no rows.
    public func run() throws(SQLiteError) {
        defer { sqlite3_reset(handle) }
        while true {
            let rc = sqlite3_step(handle)
            if rc == SQLITE_DONE { return }
            if rc != SQLITE_ROW { throw SQLiteError(code: rc, connection: database.handle, context: sql) }
        }
    }

    private func currentRow() -> Row {
        let count = sqlite3_column_count(handle)
        var values: [SQLiteValue] = []
        values.reserveCapacity(Int(count))
        for i in 0..<count {
            switch sqlite3_column_type(handle, i) {
            case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(handle, i)))
            case SQLITE_FLOAT: values.append(.real(sqlite3_column_double(handle, i)))
            case SQLITE_TEXT:
                // Read by byte count (text first, then bytes, as sqlite3_column_blob(3) asks), so
                // text holding U+0000 comes back whole.
                let text = sqlite3_column_text(handle, i)
                let size = Int(sqlite3_column_bytes(handle, i))
                if let text, size > 0 {
                    values.append(.text(String(decoding: UnsafeBufferPointer(start: text, count: size), as: UTF8.self)))
                } else {
                    values.append(.text(""))
                }
            case SQLITE_BLOB:
                let size = Int(sqlite3_column_bytes(handle, i))
                if let bytes = sqlite3_column_blob(handle, i), size > 0 {
                    values.append(.blob(Data(bytes: bytes, count: size)))
                } else {
                    values.append(.blob(Data()))
                }
            default: values.append(.null)
            }
        }
        return Row(values: values, columns: columns)
    }

    /// Copies `bytes` into the scratch space, if they fit beside what this binding already put
    /// there; nil when they do not (SQLite copies them instead).
    private func keep(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer? {
        guard let source = bytes.baseAddress, scratchUsed + bytes.count <= Self.scratchBytes else { return nil }
        let space = scratch ?? UnsafeMutableRawPointer.allocate(byteCount: Self.scratchBytes, alignment: 8)
        scratch = space
        let target = space + scratchUsed
        target.copyMemory(from: source, byteCount: bytes.count)
        scratchUsed += bytes.count
        return UnsafeRawPointer(target)
    }

    /// Gives the compiled statement back to SQLite. Safe to call twice.
    func finalize() {
        guard !finalized else { return }
        finalized = true
        sqlite3_finalize(handle)
    }

    /// The safety net: a statement dropped without `Database.close()` (one prepared outside the
    /// cache) is finalized all the same. After `close()`, `sqlite3_close_v2` keeps the connection
    /// until its last statement is finalized, so the order of the two never matters.
    deinit {
        finalize()
        scratch?.deallocate()
    }
}
