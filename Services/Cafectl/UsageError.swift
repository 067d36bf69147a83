import ServiceRuntime

/// A usage mistake: one line on stderr, exit 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

extension CommandArguments {
    /// cafectl's command line: every switch any command takes, refusals pointing at `cafectl help`.
    static func cafectl(_ arguments: [String]) throws(ConfigurationError) -> CommandArguments {
        try CommandArguments(arguments, switches: [CommandFlag(ClientCommands.pretty, .switchOnly), CommandFlag(KeysCommand.json, .switchOnly)],
                             seeAlso: "cafectl help")
    }

    /// The values of a command that takes `flags` besides the endpoint and identity flags every command takes.
    func command(_ flags: [CommandFlag]) throws(ConfigurationError) -> CommandValues {
        try values(taking: flags + Endpoints.flags)
    }
}
