/// One option, declared once with its type: its spec (flag, environment variable, kind and
/// range, default, help) and how its checked text becomes a `Value`. A program declares each of
/// its options as a `static let` and reads it as `config[Self.someOption]`; nothing reads an
/// option by its name.
public struct Option<Value: Sendable>: Sendable {
    /// The flag, its kind, default and help, as `--help` prints them and `Configuration` checks them.
    public let spec: OptionSpec
    private let convert: @Sendable (String) -> Value

    /// An option whose checked text is turned into a value by `convert`.
    public init(_ spec: OptionSpec, convert: @escaping @Sendable (String) -> Value) {
        self.spec = spec
        self.convert = convert
    }

    /// The flag's name (`--name`).
    public var name: String { spec.name }

    /// The value it has when neither its flag nor its environment variable is given: a settings
    /// type's property starts from it, so the default is written once, here.
    public var defaultValue: Value { convert(spec.defaultValue) }

    /// The value of `text`, which the spec's kind has already accepted.
    func value(of text: String) -> Value { convert(text) }
}

extension Option where Value == String {
    /// Text as given: a path, an endpoint, a name, one of a few words.
    public init(_ name: String, _ kind: OptionSpec.Kind = .string, default value: String, help: String) {
        self.init(OptionSpec(name, kind, default: value, help: help)) { $0 }
    }
}

extension Option where Value == Int {
    /// A whole number within `range`.
    public static func count(_ name: String, _ range: ClosedRange<Int> = 0...Int.max, default value: Int, help: String) -> Option {
        Option(OptionSpec.count(name, range, default: value, help: help)) { Int($0) ?? value }
    }
}

extension Option where Value == Double {
    /// Seconds within `bounds` (more than 0 unless said otherwise).
    public static func seconds(_ name: String, _ bounds: OptionSpec.Bounds = .positive, default value: Double, help: String) -> Option {
        Option(OptionSpec.seconds(name, bounds, default: value, help: help)) { Double($0) ?? value }
    }

    /// A rate per second within `bounds`.
    public static func rate(_ name: String, _ bounds: OptionSpec.Bounds = .positive, default value: Double, help: String) -> Option {
        Option(OptionSpec(name, .rate(bounds), default: OptionSpec.format(value), help: help)) { Double($0) ?? value }
    }

    /// A finite number (metres, a ratio) within `bounds`.
    public static func measure(_ name: String, _ bounds: OptionSpec.Bounds = .nonNegative, default value: Double, help: String) -> Option {
        Option(OptionSpec(name, .measure(bounds), default: OptionSpec.format(value), help: help)) { Double($0) ?? value }
    }
}

extension Option where Value == Bool {
    /// true or false (also 1/0, yes/no).
    public static func flag(_ name: String, default value: Bool, help: String) -> Option {
        Option(OptionSpec(name, .flag, default: value ? "true" : "false", help: help)) { OptionSpec.isTrue($0) }
    }
}

extension Option where Value == [String] {
    /// ZeroMQ endpoints separated by commas, at least one.
    public static func endpoints(_ name: String, default value: [String], help: String) -> Option {
        Option(OptionSpec(name, .endpointList, default: value.joined(separator: ","), help: help)) { OptionSpec.list($0) }
    }

    /// Items separated by commas, each checked by `kind` (a `.choice` or `.string` list).
    public static func list(_ name: String, _ kind: OptionSpec.Kind = .string, default value: [String], help: String) -> Option {
        Option(OptionSpec(name, kind, default: value.joined(separator: ","), help: help)) { OptionSpec.list($0) }
    }
}

extension Option where Value == [Double] {
    /// Rates per second separated by commas, at least one, each within `bounds`.
    public static func rates(_ name: String, _ bounds: OptionSpec.Bounds = .positive, default value: [Double], help: String) -> Option {
        Option(OptionSpec(name, .rateList(bounds), default: value.map(OptionSpec.format).joined(separator: ","), help: help)) {
            OptionSpec.list($0).compactMap(Double.init)
        }
    }
}

extension Option {
    /// One of a type's cases, by its raw value.
    public static func choice(_ name: String, default value: Value, help: String) -> Option
    where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
        Option(OptionSpec(name, .choice(Value.allCases.map(\.rawValue)), default: value.rawValue, help: help)) { Value(rawValue: $0) ?? value }
    }
}

extension Option where Value == String? {
    /// Text that may be left out: empty, its default, reads as nil.
    public static func optional(_ name: String, _ kind: OptionSpec.Kind = .string, help: String) -> Option {
        Option(OptionSpec(name, kind, default: "", help: help)) { $0.isEmpty ? nil : $0 }
    }
}
