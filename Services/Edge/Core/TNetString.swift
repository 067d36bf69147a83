/// One tnetstring value (https://tnetstrings.info): what Pushpin's zmq-http packets are made of.
///
/// `<length>:<data><tag>`, where the tag says the type: `,` bytes, `#` integer, `^` float, `!`
/// boolean, `~` null, `]` list, `}` dictionary. Strings are bytes, not text (an HTTP body, a
/// header value), so `.bytes` keeps them as bytes. A dictionary keeps its members in the order
/// they came, so encoding what was decoded gives the same bytes back.
public enum TNetString: Sendable, Equatable {
    case bytes([UInt8])
    case integer(Int64)
    case float(Double)
    case bool(Bool)
    case null
    case list([TNetString])
    /// Members in order; keys are UTF-8 text (Pushpin reads them as such) and never repeat.
    case dictionary([(key: String, value: TNetString)])

    /// A string value from text.
    public static func text(_ value: String) -> TNetString { .bytes(Array(value.utf8)) }

    /// Equal values; dictionary members compared in order.
    public static func == (lhs: TNetString, rhs: TNetString) -> Bool {
        switch (lhs, rhs) {
        case (.bytes(let a), .bytes(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        // Bit equality, so a NaN read back equals the NaN written.
        case (.float(let a), .float(let b)): a.bitPattern == b.bitPattern
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        case (.list(let a), .list(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The member called `key` of a dictionary; nil for a missing member or another type.
    public subscript(key: String) -> TNetString? {
        guard case .dictionary(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The type's name, for error messages.
    public var kind: String {
        switch self {
        case .bytes: "string"
        case .integer: "integer"
        case .float: "float"
        case .bool: "boolean"
        case .null: "null"
        case .list: "list"
        case .dictionary: "dictionary"
        }
    }
}
