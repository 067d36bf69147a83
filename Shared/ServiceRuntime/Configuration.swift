import Foundation

/// One configuration key: a flag, the environment variable that can set it, a default and help.
public struct OptionSpec: Sendable {
    public enum Kind: Sendable {
        case string, integer, number, flag, endpoint, path
        /// One of the listed words.
        case choice([String])
    }

    public let name: String
    public let kind: Kind
    public let defaultValue: String
    public let help: String
    /// For `.integer`: the values allowed (otherwise any whole number ≥ 0).
    public let range: ClosedRange<Int>?

    public init(_ name: String, _ kind: Kind = .string, default defaultValue: String, range: ClosedRange<Int>? = nil, help: String) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.range = range
        self.help = help
    }

    /// `--bus-pub` is read from `CAFE_BUS_PUB`.
    public var environmentName: String { "CAFE_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }

    func validate(_ value: String) -> String? {
        switch kind {
        case .string, .path: return value.isEmpty && !defaultValue.isEmpty ? "must not be empty" : nil
        // Every count, size, duration and rate here is zero or more: a negative one is a typo.
        case .integer:
            let allowed = range ?? 0...Int.max
            let wanted = range.map { "\($0.lowerBound)…\($0.upperBound)" } ?? "≥ 0"
            return Int(value).map(allowed.contains) == true ? nil : "must be a whole number \(wanted), not \"\(value.prefix(40))\""
        case .number: return Double(value).map { $0.isFinite && $0 >= 0 } == true ? nil : "must be a number ≥ 0, not \"\(value)\""
        case .flag: return ["true", "false", "1", "0", "yes", "no"].contains(value.lowercased()) ? nil : "must be true or false, not \"\(value)\""
        case .endpoint:
            let ok = ["tcp://", "ipc://", "inproc://"].contains { value.hasPrefix($0) } && value.count > 7
            return ok ? nil : "must be a ZeroMQ endpoint like tcp://127.0.0.1:7401, not \"\(value)\""
        case .choice(let words): return words.contains(value) ? nil : "must be one of \(words.joined(separator: ", ")), not \"\(value)\""
        }
    }
}

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
        var flags: [String: String] = [:]
        var positional: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" { throw HelpRequested() }
            if argument == "--" {
                positional.append(contentsOf: arguments[index...])
                break
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                guard allowPositional else { throw ConfigurationError(message: "\(program): unexpected argument \"\(argument)\" (see --help)") }
                positional.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let eq = name.firstIndex(of: "=") {
                value = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let spec = byName[name] else { throw ConfigurationError(message: "\(program): unknown flag --\(name) (see --help)") }
            if value == nil {
                if case .flag = spec.kind, index >= arguments.count || arguments[index].hasPrefix("--") {
                    value = "true"
                } else {
                    guard index < arguments.count else { throw ConfigurationError(message: "\(program): flag --\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
            }
            flags[name] = value
        }
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

    /// The string value of a key declared in the specs.
    public func string(_ name: String) -> String {
        guard let value = values[name] else { preconditionFailure("configuration key \(name) was not declared") }
        return value
    }

    public func int(_ name: String) -> Int { Int(string(name)) ?? 0 }
    public func double(_ name: String) -> Double { Double(string(name)) ?? 0 }
    public func bool(_ name: String) -> Bool { ["true", "1", "yes"].contains(string(name).lowercased()) }

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

extension OptionSpec {
    var kindLabel: String {
        switch kind {
        case .string: "text"
        case .integer: "integer"
        case .number: "number"
        case .flag: "true|false"
        case .endpoint: "endpoint"
        case .path: "path"
        case .choice(let words): words.joined(separator: "|")
        }
    }
}

/// Reads configuration for an executable: prints help and exits 0 on `--help`, prints one line
/// and exits 2 on an unknown flag or a bad value.
public func loadConfiguration(program: String, summary: String, specs: [OptionSpec], usage: String? = nil, allowPositional: Bool = false) -> Configuration {
    do {
        return try Configuration(program: program, specs: specs, arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment, allowPositional: allowPositional)
    } catch is HelpRequested {
        print(Configuration.helpText(program: program, summary: summary, specs: specs, usage: usage))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(2)
    }
}
