import Foundation

/// A value as SQLite stores it.
public enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// A Swift type that binds to a statement parameter.
public protocol SQLiteBindable {
    var sqliteValue: SQLiteValue { get }
    /// Binds this value as parameter `index` of `statement`: what `sqliteValue` says, without
    /// making it (the types bound per row do it directly; any other by its `sqliteValue`).
    func bind(to statement: Statement, at index: Int32) throws(SQLiteError)
}

extension SQLiteBindable {
    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) {
        try statement.bind(sqliteValue, at: index)
    }
}

extension Int: SQLiteBindable {
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }
    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) { try statement.bindInteger(Int64(self), at: index) }
}
extension Int64: SQLiteBindable {
    public var sqliteValue: SQLiteValue { .integer(self) }
    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) { try statement.bindInteger(self, at: index) }
}
extension Int32: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(Int64(self)) } }
extension UInt64: SQLiteBindable {
    /// Sequence numbers are refused beyond Int64.max where they are decoded. Should a larger one
    /// get here all the same, it binds as the REAL it is nearest to, never a trap: SQLite compares
    /// INTEGER with REAL by value, so `seq >= ?` still finds nothing above every stored seq.
    public var sqliteValue: SQLiteValue { Int64(exactly: self).map { .integer($0) } ?? .real(Double(self)) }
}
extension Bool: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) } }
extension Double: SQLiteBindable { public var sqliteValue: SQLiteValue { .real(self) } }
extension String: SQLiteBindable {
    public var sqliteValue: SQLiteValue { .text(self) }
    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) { try statement.bindText(self, at: index) }
}
extension Data: SQLiteBindable {
    public var sqliteValue: SQLiteValue { .blob(self) }
    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) { try statement.bindBlob(self, at: index) }
}
extension SQLiteValue: SQLiteBindable { public var sqliteValue: SQLiteValue { self } }
extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    public var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) {
        if let value = self { try value.bind(to: statement, at: index) } else { try statement.bindNull(at: index) }
    }
}
