import Foundation

/// A tool's command line (cafectl, a load-test subcommand), split once by `CommandLineTokens`:
/// the words that name a command and its positional arguments, then each command's flags read
/// against the flags that command declares (`values(taking:)`). The tool says which flags are
/// switches, because a switch must not take the word after it and the tokens are split before
/// the command is known.
public struct CommandArguments: Sendable {
    /// The arguments that are not flags, in order: the command words, then its positional ones.
    public let words: [String]
    /// `--help` or `-h` appeared.
    public let helpRequested: Bool
    private let flags: [(name: String, value: String)]
    private let switches: Set<String>
    private let seeAlso: String

    /// Splits `arguments` (without the program name). `switches` are every switch any command
    /// of the tool takes; `seeAlso` is where a refusal points (`cafectl help`).
    public init(_ arguments: [String], switches: [CommandFlag], seeAlso: String) throws(ConfigurationError) {
        let names = Set(switches.map(\.name))
        let tokens = try CommandLineTokens(arguments) { names.contains($0) ? .switchOnly : .value }
        words = tokens.words
        helpRequested = tokens.helpRequested
        flags = tokens.flags
        self.switches = names
        self.seeAlso = seeAlso
    }

    /// The values of the command that takes `declared`: a flag given, else its environment
    /// variable (where it has one), else its default. Refuses a flag the command does not take
    /// (a typo must not be silently ignored) unless `refusingOthers` is false, for flags every
    /// command shares and that are read before the command is known; and refuses a value its
    /// option's kind does not take.
    public func values(taking declared: [CommandFlag], refusingOthers: Bool = true,
                       environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigurationError) -> CommandValues {
        let byName = Dictionary(declared.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        if refusingOthers, let unknown = flags.map(\.name).filter({ byName[$0] == nil }).sorted().first {
            throw ConfigurationError(message: "unknown flag --\(unknown) for this command (see \(seeAlso))")
        }
        var given: [String: [String]] = [:]
        for (name, value) in flags {
            guard let flag = byName[name] else { continue }
            precondition((flag.form == .switchOnly) == switches.contains(name), "--\(name) is a switch in one command and not in another")
            given[name, default: []].append(value)
        }
        for flag in declared where given[flag.name] == nil {
            if let variable = flag.environment, let value = environment[variable], !value.isEmpty { given[flag.name] = [value] }
        }
        for flag in declared {
            let origin = flags.contains { $0.name == flag.name } ? "--\(flag.name)" : flag.environment ?? "--\(flag.name)"
            // As in `Configuration`: an empty value of an option whose default is empty is one left out.
            // Only the last value of a single flag counts, so only it is checked.
            let counted = flag.form == .repeated ? given[flag.name] ?? [] : Array((given[flag.name] ?? []).suffix(1))
            for value in counted where !(value.isEmpty && flag.spec.defaultValue.isEmpty) {
                if let problem = flag.problem(with: value, origin: origin) { throw ConfigurationError(message: problem) }
            }
        }
        return CommandValues(given: given, declared: declared)
    }
}
