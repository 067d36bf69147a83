/// One flag a command of a tool takes (cafectl's `kds tickets --cafe C`, a load-test subcommand's
/// `--rate 50`): an `Option`, declared once with its type, default and range, and how the command
/// line gives it. A service reads its options through `Configuration`; a tool with commands
/// declares each command's flags as a list of these and reads them through
/// `CommandArguments.values(taking:)`.
public struct CommandFlag: Sendable {
    /// How the flag appears on a command line.
    public enum Form: Sendable {
        /// `--name value` or `--name=value`; given twice, the last counts.
        case single
        /// `--name value` any number of times, each kept in order (`--item latte --item tea`).
        case repeated
        /// `--name` alone means true and never takes the next argument (`--pretty order.`).
        case switchOnly
    }

    /// The option's flag, kind, default and help.
    public let spec: OptionSpec
    public let form: Form
    /// The environment variable read when the flag is not given (an empty one counts as unset);
    /// nil: the command line only, so a variable meant for a service never changes a command.
    public let environment: String?
    /// What a refused value "must be" (`a number above 0`), where the tool's wording is older
    /// than the kind's; nil: the kind's own words.
    public let refusal: String?

    /// `option` as a flag of a command.
    public init<Value>(_ option: Option<Value>, _ form: Form = .single, environment: String? = nil, refusal: String? = nil) {
        spec = option.spec
        self.form = form
        self.environment = environment
        self.refusal = refusal
    }

    /// The flag's name (`--name`).
    public var name: String { spec.name }

    /// Why `value` is refused ("--count must be …, not "x""), or nil when it is taken. `origin`
    /// names where it came from: the flag, or the environment variable.
    func problem(with value: String, origin: String) -> String? {
        guard let problem = spec.problem(with: value) else { return nil }
        guard let refusal else { return "\(origin) \(problem)" }
        let quoted = "\"\(value.prefix(64))\"" + (value.count > 64 ? "… (\(value.count) characters)" : "")
        return "\(origin) must be \(refusal), not \(quoted)"
    }

    /// Help lines for `flags`, one flag per entry as `--help` prints them: the flag with its kind,
    /// its help, and its environment variable and default where it has them.
    public static func helpLines(_ flags: [CommandFlag]) -> [String] {
        var lines: [String] = []
        for flag in flags {
            let value = flag.form == .switchOnly ? "" : " <\(flag.spec.kindLabel)>"
            lines.append("  --\(flag.name)\(value)\(flag.form == .repeated ? " (repeatable)" : "")")
            lines.append("      \(flag.spec.help)")
            let origins = [flag.environment.map { "env \($0)" }, flag.spec.defaultValue.isEmpty || flag.form == .switchOnly ? nil : "default \(flag.spec.defaultValue)"]
                .compactMap { $0 }
            if !origins.isEmpty { lines.append("      " + origins.joined(separator: ", ")) }
        }
        return lines
    }
}
