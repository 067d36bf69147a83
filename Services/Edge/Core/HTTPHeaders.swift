/// HTTP header fields in the order they came, looked up without regard to case (RFC 9110 §5.1).
/// Values are text; bytes that are not UTF-8 (obs-text) read as U+FFFD, which no field the edge
/// acts on may hold.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    /// The fields as they came: names as the client wrote them.
    public private(set) var fields: [(name: String, value: String)]

    /// Fields in the order given.
    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// Adds a field after the others.
    public mutating func append(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// How many fields, repeats counted.
    public var count: Int { fields.count }

    /// The fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// The same fields in the same order, names compared as written.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}
