import Foundation

/// One result row, read by column name or index with the type the caller expects.
public struct Row: Sendable {
    public let values: [SQLiteValue]
    let columns: [String: Int]

    func value(_ name: String) -> SQLiteValue {
        guard let index = columns[name] else { preconditionFailure("no column \(name) in this query") }
        return values[index]
    }

    /// Whether the column is NULL.
    public func isNull(_ name: String) -> Bool { value(name) == .null }

    /// An INTEGER column (0 when NULL).
    public func int(_ name: String) -> Int { Int(int64(name)) }

    /// An INTEGER column as Int64 (0 when NULL). A REAL is cut to a whole number and held to
    /// Int64's range (NaN reads 0), never trapped on.
    public func int64(_ name: String) -> Int64 {
        switch value(name) {
        case .integer(let v): v
        case .real(let v): v.isNaN ? 0 : Int64(exactly: v.rounded(.towardZero)) ?? (v < 0 ? .min : .max)
        case .text(let s): Int64(s) ?? 0
        case .null, .blob: 0
        }
    }

    /// An INTEGER column read as a Bool.
    public func bool(_ name: String) -> Bool { int64(name) != 0 }

    /// A REAL column (0 when NULL).
    public func double(_ name: String) -> Double {
        switch value(name) {
        case .real(let v): v
        case .integer(let v): Double(v)
        case .text(let s): Double(s) ?? 0
        case .null, .blob: 0
        }
    }

    /// A TEXT column ("" when NULL).
    public func string(_ name: String) -> String { optionalString(name) ?? "" }

    /// A TEXT column, nil when NULL.
    public func optionalString(_ name: String) -> String? {
        switch value(name) {
        case .text(let s): s
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .blob(let d): String(decoding: d, as: UTF8.self)
        case .null: nil
        }
    }

    /// An INTEGER column, nil when NULL.
    public func optionalInt64(_ name: String) -> Int64? { isNull(name) ? nil : int64(name) }

    /// A BLOB column (empty when NULL).
    public func data(_ name: String) -> Data {
        switch value(name) {
        case .blob(let d): d
        case .text(let s): Data(s.utf8)
        default: Data()
        }
    }
}
