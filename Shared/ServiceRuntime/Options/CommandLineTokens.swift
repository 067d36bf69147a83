/// A command line split into flags and words: the one parser every executable and `cafectl`
/// share. `--name value`, `--name=value`, switches (`--pretty`), `--` ending the flags, and
/// `--help`/`-h` anywhere.
public struct CommandLineTokens: Sendable {
    /// How a flag takes its value.
    public enum Form: Sendable {
        /// Always takes a value: `--name value` or `--name=value`.
        case value
        /// A boolean: bare (`--verbose`) means true when the next argument is another flag or
        /// there is none; otherwise the next argument is its value (`--verbose no`).
        case boolean
        /// Never takes the next argument: bare means true (`--pretty order.`).
        case switchOnly
    }

    /// Every flag in order, as given (a flag given twice appears twice).
    public private(set) var flags: [(name: String, value: String)] = []
    /// The arguments that are not flags, in order (everything after `--` among them).
    public private(set) var words: [String] = []
    /// `--help` or `-h` appeared.
    public private(set) var helpRequested = false

    /// Splits `arguments` (without the program name); `form` says how each flag name takes a value.
    public init(_ arguments: [String], form: (String) -> Form) throws(ConfigurationError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" {
                helpRequested = true
                continue
            }
            if argument == "--" {
                words.append(contentsOf: arguments[index...])
                break
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                words.append(argument)
                continue
            }
            let name = String(argument.dropFirst(2))
            if let eq = name.firstIndex(of: "=") {
                flags.append((String(name[..<eq]), String(name[name.index(after: eq)...])))
                continue
            }
            let nextIsValue = index < arguments.count && !arguments[index].hasPrefix("--")
            switch form(name) {
            case .switchOnly:
                flags.append((name, "true"))
            case .boolean where !nextIsValue:
                flags.append((name, "true"))
            case .boolean, .value:
                guard index < arguments.count else { throw ConfigurationError(message: "flag --\(name) needs a value") }
                flags.append((name, arguments[index]))
                index += 1
            }
        }
    }
}
