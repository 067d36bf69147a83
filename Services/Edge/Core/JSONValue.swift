import Foundation
import Messages

/// A JSON value the edge writes itself (a problem, the OpenAPI document, an op body's members
/// from a path or a query): objects keep their members in the order given, so the same value
/// always gives the same bytes.
public indirect enum JSONValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// Equal values; object members compared in order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// Compact UTF-8 JSON.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        append(to: &out)
        return out
    }

    /// Appends the compact JSON of this value.
    public func append(to out: inout [UInt8]) {
        switch self {
        case .string(let text): JSONText.appendQuoted(text, to: &out)
        case .integer(let value): out.append(contentsOf: Array(String(value).utf8))
        case .bool(let value): out.append(contentsOf: Array((value ? "true" : "false").utf8))
        case .null: out.append(contentsOf: Array("null".utf8))
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.append(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendQuoted(member.0, to: &out)
                out.append(UInt8(ascii: ":"))
                member.1.append(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
