import Foundation

/// cafectl's command line: command words, then `--flag value` pairs (`--flag` alone for booleans).
struct Arguments {
    var words: [String] = []
    var flags: [String: [String]] = [:]
    private(set) var used: Set<String> = []

    static let booleanFlags: Set<String> = ["pretty", "json", "help"]

    init(_ arguments: [String]) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument.hasPrefix("--"), argument.count > 2 {
                var name = String(argument.dropFirst(2))
                var value: String
                if let eq = name.firstIndex(of: "=") {
                    value = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                } else if Self.booleanFlags.contains(name) {
                    value = "true"
                } else {
                    guard index < arguments.count else { throw UsageError("flag --\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                flags[name, default: []].append(value)
            } else {
                words.append(argument)
            }
        }
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
        guard let parsed = Int(text) else { throw UsageError("--\(name) must be an integer, not \"\(text)\"") }
        return parsed
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
