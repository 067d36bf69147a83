/// Options that may be left out: a command's flag with no default (`--cafe C`, `--lat X`), whose
/// value is nil unless it is given. An empty value counts as left out, as `Configuration` lets an
/// empty value pass an option whose default is empty.
extension Option where Value == String? {
    /// Text that may be left out, checked by `kind` when given.
    public init(_ name: String, _ kind: OptionSpec.Kind = .string, help: String) {
        self.init(OptionSpec(name, kind, default: "", help: help)) { $0.isEmpty ? nil : $0 }
    }
}

extension Option {
    /// A value of `kind` that may be left out, made from its checked text by `convert`.
    public static func optional<Wrapped: Sendable>(_ name: String, _ kind: OptionSpec.Kind, help: String,
                                                   _ convert: @escaping @Sendable (String) -> Wrapped?) -> Option where Value == Wrapped? {
        Option(OptionSpec(name, kind, default: "", help: help)) { $0.isEmpty ? nil : convert($0) }
    }

    /// One of a type's cases, by its raw value, that may be left out.
    public static func optionalChoice<Wrapped>(_ name: String, help: String) -> Option
    where Value == Wrapped?, Wrapped: RawRepresentable & CaseIterable & Sendable, Wrapped.RawValue == String {
        optional(name, .choice(Wrapped.allCases.map(\.rawValue)), help: help) { Wrapped(rawValue: $0) }
    }
}

extension OptionSpec.Bounds {
    /// Any finite number: a latitude, a signal strength, a value the service checks itself.
    public static let finite = OptionSpec.Bounds(lower: -.infinity)
}
