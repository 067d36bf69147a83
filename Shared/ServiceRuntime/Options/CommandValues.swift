/// One command's flag values, read by their options (`values[Self.count]`), never by name. Each
/// value was checked by its option's kind when the command's flags were read.
public struct CommandValues: Sendable {
    private let given: [String: [String]]
    private let declared: [String: CommandFlag]

    init(given: [String: [String]], declared: [CommandFlag]) {
        self.given = given
        self.declared = Dictionary(declared.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The value of `option`: as given (the last time, if given twice), else from its
    /// environment variable, else its default; nil for an `Option<T?>` left out.
    public subscript<Value>(_ option: Option<Value>) -> Value {
        option.value(of: texts(option).last ?? option.spec.defaultValue)
    }

    /// Every value of a repeated flag, in the order given.
    public func every<Value>(_ option: Option<Value>) -> [Value] {
        texts(option).map(option.value(of:))
    }

    /// The flag was given (or its environment variable set), not left at its default.
    public func isGiven<Value>(_ option: Option<Value>) -> Bool { !texts(option).isEmpty }

    /// The value of a flag the command cannot do without: "missing --name" when it is left out.
    public func required<Wrapped>(_ option: Option<Wrapped?>) throws(ConfigurationError) -> Wrapped {
        guard let value = self[option] else { throw ConfigurationError(message: "missing --\(option.name)") }
        return value
    }

    private func texts<Value>(_ option: Option<Value>) -> [String] {
        guard declared[option.name] != nil else { preconditionFailure("flag --\(option.name) was read but the command does not declare it") }
        return given[option.name] ?? []
    }
}
