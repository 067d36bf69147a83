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
}

extension Int: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(Int64(self)) } }
extension Int64: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(self) } }
extension Int32: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(Int64(self)) } }
extension UInt64: SQLiteBindable {
    /// Sequence numbers are refused beyond Int64.max where they are decoded. Should a larger one
    /// get here all the same, it binds as the REAL it is nearest to, never a trap: SQLite compares
    /// INTEGER with REAL by value, so `seq >= ?` still finds nothing above every stored seq.
    public var sqliteValue: SQLiteValue { Int64(exactly: self).map { .integer($0) } ?? .real(Double(self)) }
}
extension Bool: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) } }
extension Double: SQLiteBindable { public var sqliteValue: SQLiteValue { .real(self) } }
extension String: SQLiteBindable { public var sqliteValue: SQLiteValue { .text(self) } }
extension Data: SQLiteBindable { public var sqliteValue: SQLiteValue { .blob(self) } }
extension SQLiteValue: SQLiteBindable { public var sqliteValue: SQLiteValue { self } }
extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    public var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}
