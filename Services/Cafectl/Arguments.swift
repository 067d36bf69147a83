import Foundation
import ServiceRuntime

/// cafectl's command line: command words, then `--flag value` pairs (`--flag` alone for the
/// switches), split by the tokenizer every executable uses; each command reads the flags it takes.
struct Arguments {
    var words: [String] = []
    var flags: [String: [String]] = [:]
    private(set) var used: Set<String> = []

    static let booleanFlags: Set<String> = ["pretty", "json", "help"]

    init(_ arguments: [String]) throws {
        let tokens: CommandLineTokens
        do {
            tokens = try CommandLineTokens(arguments) { Self.booleanFlags.contains($0) ? .switchOnly : .value }
        } catch {
            throw UsageError(error.message)
        }
        words = tokens.words
        for (name, value) in tokens.flags { flags[name, default: []].append(value) }
        if tokens.helpRequested { flags["help"] = ["true"] }
    }

    mutating func string(_ name: String) -> String? {
        used.insert(name)
        return flags[name]?.last
    }

    mutating func all(_ name: String) -> [String] {
        used.insert(name)
        return flags[name] ?? []
    }

    mutating func required(_ name: String) throws -> String {
        guard let value = string(name) else { throw UsageError("missing --\(name)") }
        return value
    }

    mutating func int(_ name: String, default value: Int) throws -> Int {
        guard let text = string(name) else { return value }
        guard let parsed = Int(text) else { throw UsageError("--\(name) must be an integer, not \"\(text.prefix(64))\"") }
        return parsed
    }

    /// A value checked against an option kind, with the same refusal an executable's flag gets.
    mutating func value(_ name: String, _ kind: OptionSpec.Kind, default fallback: String) throws -> String {
        let text = string(name) ?? fallback
        if let problem = OptionSpec(name, kind, default: fallback, help: "").problem(with: text) { throw UsageError("--\(name) \(problem)") }
        return text
    }

    mutating func bool(_ name: String, default value: Bool) throws -> Bool {
        guard let text = string(name) else { return value }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw UsageError("--\(name) must be true or false, not \"\(text)\"")
        }
    }

    /// Refuses flags the command did not read (a typo must not be silently ignored).
    func checkAllUsed() throws {
        let unknown = Set(flags.keys).subtracting(used).subtracting(Endpoints.flagNames)
        if let first = unknown.sorted().first { throw UsageError("unknown flag --\(first) for this command (see cafectl help)") }
    }
}

/// A usage mistake: one line on stderr, exit 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
