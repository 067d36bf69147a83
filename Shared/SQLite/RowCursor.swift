import CSQLite
import Foundation

/// The row a statement is stepped to, read by column index while `Statement.forEachRow`'s body
/// runs: nothing is copied that the caller does not ask for. For reading whole tables at start
/// (region-monitor restores 10⁶ devices), where a `Row` per row (an array of values, a String per
/// text) cost more than the reading.
public struct RowCursor {
    let handle: OpaquePointer

    /// Whether the column is NULL.
    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// An INTEGER column (0 when NULL; SQLite's conversion otherwise).
    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// An INTEGER column, nil when NULL.
    public func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

    /// A TEXT column ("" when NULL), read by its byte count so text holding U+0000 comes back whole.
    public func string(_ column: Int32) -> String {
        withText(column) { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// A TEXT column, nil when NULL.
    public func optionalString(_ column: Int32) -> String? {
        withText(column) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with a TEXT column's bytes, valid only during the call; nil when NULL.
    public func withText<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T? {
        guard !isNull(column) else { return nil }
        // Text first, then its size, as sqlite3_column_blob(3) asks.
        let text = sqlite3_column_text(handle, column)
        let size = Int(sqlite3_column_bytes(handle, column))
        guard let text, size > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: text, count: size))
    }
}

extension Statement {
    /// Runs the statement, calling `body` with each row as it is stepped; nothing is kept.
    public func forEachRow(_ body: (RowCursor) throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        let cursor = RowCursor(handle: handle)
        while true {
            let rc = sqlite3_step(handle)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw SQLiteError(code: rc, connection: database.handle, context: sql) }
            try body(cursor)
        }
    }
}

extension Database {
    /// Runs a query (a prepared statement of the cache, bound to `values`), calling `body` with
    /// each row as it is stepped, read by column index (see `RowCursor`). The body must not run
    /// this same SQL again, nor change the table being read: collect what to change and change it after.
    public func forEachRow(_ sql: String, _ values: SQLiteBindable..., body: (RowCursor) throws -> Void) throws {
        do {
            let statement = try prepare(sql)
            try statement.bind(values)
            try statement.forEachRow(body)
        } catch let error as SQLiteError {
            throw noted(error)
        }
    }
}
