import Foundation
import Messages

/// A JSON value from a token's header or claims, or a key set: what JOSE documents hold, typed
/// enough to tell a string from a number from a boolean (an `email_verified` of `"true"` is not `true`).
public enum JSONValue: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// The string, or nil for any other kind of value.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as a Double (whole or not), or nil for any other kind of value.
    public var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// The deepest a JOSE document may nest: a JWKS nests 3 levels (set, keys, key), claims
    /// rarely more than 3 (an `address` object); anything deeper is not an identity document.
    public static let maxDepth = 8

    /// A JSON object from `bytes`, checked before any recursive parser sees it: at most
    /// `maxDepth` deep, no member named twice in one object (two `alg`s or two `aud`s must not
    /// be read one way here and another way elsewhere). nil when it is not such an object.
    static func object(_ bytes: [UInt8]) -> [String: JSONValue]? {
        let data = Data(bytes)
        guard !Wire.nestsTooDeep(data, limit: maxDepth), Wire.repeatedMember(in: data) == nil else { return nil }
        return try? JSONDecoder().decode([String: JSONValue].self, from: data)
    }
}
