/// A value a route reads from the path, the query or a header field, the op body member it goes
/// to, and its type (which decides how it is written into the JSON body and how it is bounded).
public struct Parameter: Sendable, Equatable {
    /// Where in the request the value is.
    public enum Location: String, Sendable {
        case path, query, header
    }

    /// The value's type.
    public enum Kind: Sendable, Equatable {
        /// Text of at most this many UTF-8 bytes; a JSON string.
        case string(maxBytes: Int)
        /// A decimal integer in the range; a JSON number.
        case integer(ClosedRange<Int64>)
        /// `true` or `false`; a JSON boolean.
        case boolean
    }

    /// As the client writes it: `orderId`, `locale`, `Idempotency-Key`.
    public let name: String
    public let location: Location
    public let kind: Kind
    public let required: Bool
    /// The op body member it becomes (`Idempotency-Key` is `idempotencyKey`).
    public let member: String
    public let summary: String

    /// How long a path segment may be: ids on the platform are tokens of at most 64 characters;
    /// a ticket id is an order id and a station.
    public static let maxPathBytes = 160

    /// A parameter; `member` defaults to `name`.
    public init(_ name: String, in location: Location, _ kind: Kind, required: Bool = false, member: String? = nil, summary: String = "") {
        self.name = name
        self.location = location
        self.kind = kind
        self.required = required
        self.member = member ?? name
        self.summary = summary
    }

    /// A query parameter.
    public static func query(_ name: String, _ kind: Kind, required: Bool = false, summary: String = "") -> Parameter {
        Parameter(name, in: .query, kind, required: required, summary: summary)
    }

    /// The JSON value of `text` as this parameter's kind, or nil when it is not one.
    func value(_ text: String) -> JSONValue? {
        switch kind {
        case .string(let maxBytes):
            guard !text.isEmpty, text.utf8.count <= maxBytes else { return nil }
            return .string(text)
        case .integer(let range):
            let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
            guard !digits.isEmpty, digits.count <= 19, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let number = Int64(text), range.contains(number) else { return nil }
            return .integer(number)
        case .boolean:
            return text == "true" ? .bool(true) : text == "false" ? .bool(false) : nil
        }
    }

    /// What a value must be, for the refusal.
    var expectation: String {
        switch kind {
        case .string(let maxBytes): "must be 1–\(maxBytes) bytes"
        case .integer(let range): "must be a whole number in \(range.lowerBound)…\(range.upperBound)"
        case .boolean: "must be true or false"
        }
    }
}
