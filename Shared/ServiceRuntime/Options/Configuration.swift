import Foundation

/// Why configuration could not be read. `main` prints it on one line and exits 2.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Resolved configuration: each key from its flag, else its environment variable, else its default.
public struct Configuration: Sendable {
    public let program: String
    public let specs: [OptionSpec]
    private let values: [String: String]
    /// Arguments that are not flags (commands for tools like `cafectl`).
    public let positional: [String]
    /// Where each value came from ("flag", "environment", "default"), for the startup log line.
    public let sources: [String: String]

    /// Parses `arguments` (without the program name) against `specs`.
    /// `--help` is reported as `HelpRequested`; unknown flags and bad values as `ConfigurationError`.
    public init(program: String, specs: [OptionSpec], arguments: [String], environment: [String: String], allowPositional: Bool = false) throws {
        self.program = program
        self.specs = specs
        let byName = Dictionary(specs.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let tokens: CommandLineTokens
        do {
            tokens = try CommandLineTokens(arguments) { name in
                // An unknown name takes no value, so it is refused as unknown, not as missing its value.
                switch byName[name]?.kind {
                case .flag?: .boolean
                case nil: .switchOnly
                default: .value
                }
            }
        } catch {
            throw ConfigurationError(message: "\(program): \(error.message)")
        }
        if tokens.helpRequested { throw HelpRequested() }
        var flags: [String: String] = [:]
        for (name, value) in tokens.flags {
            guard byName[name] != nil else { throw ConfigurationError(message: "\(program): unknown flag --\(name) (see --help)") }
            flags[name] = value
        }
        if let word = tokens.words.first, !allowPositional {
            throw ConfigurationError(message: "\(program): unexpected argument \"\(word)\" (see --help)")
        }
        let positional = tokens.words
        var values: [String: String] = [:]
        var sources: [String: String] = [:]
        for spec in specs {
            let value: String
            if let flag = flags[spec.name] {
                value = flag
                sources[spec.name] = "flag"
            } else if let env = environment[spec.environmentName] {
                value = env
                sources[spec.name] = "environment"
            } else {
                value = spec.defaultValue
                sources[spec.name] = "default"
            }
            if !(value.isEmpty && spec.defaultValue.isEmpty), let problem = spec.validate(value) {
                let origin = sources[spec.name] == "environment" ? spec.environmentName : "--\(spec.name)"
                throw ConfigurationError(message: "\(program): \(origin) \(problem)")
            }
            values[spec.name] = value
        }
        self.values = values
        self.positional = positional
        self.sources = sources
    }

    /// The value of a declared option. Options are read only this way, never by name.
    public subscript<Value>(_ option: Option<Value>) -> Value { option.value(of: text(option.name)) }

    /// The option was given (by flag or environment), not left at its default.
    public func isSet<Value>(_ option: Option<Value>) -> Bool { sources[option.name].map { $0 != "default" } ?? false }

    /// Every value that did not come from its default, with where it came from (`"9 (flag)"`),
    /// keyed by option name: what a startup log line shows.
    public var changedValues: [String: String] {
        var changed: [String: String] = [:]
        for (name, source) in sources where source != "default" { changed[name] = "\(text(name)) (\(source))" }
        return changed
    }

    /// The checked text of a declared option.
    private func text(_ name: String) -> String {
        guard let value = values[name] else { preconditionFailure("option --\(name) was read but not declared in the specs") }
        return value
    }

    /// The `--help` text: every key with its environment variable and default.
    public static func helpText(program: String, summary: String, specs: [OptionSpec], usage: String? = nil) -> String {
        var lines = ["\(program): \(summary)", "", "usage: \(usage ?? "\(program) [options]")", "", "options (flag, then environment, then default):"]
        for spec in specs {
            let shown = spec.defaultValue.isEmpty ? "(none)" : spec.defaultValue
            lines.append("  --\(spec.name) <\(spec.kindLabel)>")
            lines.append("      \(spec.help)")
            lines.append("      env \(spec.environmentName), default \(shown)")
        }
        lines.append("  --help")
        lines.append("      print this help and exit")
        return lines.joined(separator: "\n")
    }
}

/// `--help` was asked for.
public struct HelpRequested: Error, Sendable {}

/// Reads configuration for a service executable: prints help (plain text, stdout) and exits 0
/// on `--help`; logs one JSON line on stderr (`Logger.exitStart`) and exits 2 on an unknown flag
/// or a bad value. Operator tools (cafectl, load-test) keep plain-text errors and read theirs elsewhere.
public func loadConfiguration(program: String, summary: String, specs: [OptionSpec], usage: String? = nil, allowPositional: Bool = false) -> Configuration {
    do {
        return try Configuration(program: program, specs: specs, arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment, allowPositional: allowPositional)
    } catch is HelpRequested {
        print(Configuration.helpText(program: program, summary: summary, specs: specs, usage: usage))
        exit(0)
    } catch {
        // The instance option may be what is wrong: the line names the program instead.
        Logger(service: program, instance: program).exitStart("invalid configuration", error: error, status: 2)
    }
}
