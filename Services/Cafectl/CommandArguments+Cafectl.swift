import ServiceRuntime

extension CommandArguments {
    /// cafectl's command line: every switch any command takes, refusals pointing at `cafectl help`.
    static func cafectl(_ arguments: [String]) throws(ConfigurationError) -> CommandArguments {
        try CommandArguments(arguments, switches: [ClientCommands.prettySwitch, KeysCommand.jsonSwitch], seeAlso: "cafectl help")
    }

    /// The values of a command that takes `flags` besides the endpoint and identity flags every
    /// command takes. With `--help` the command's flags are what is asked for: `CommandHelp`.
    func command(_ flags: [CommandFlag]) throws -> CommandValues {
        if helpRequested { throw CommandHelp(flags: flags) }
        return try values(taking: flags + Endpoints.flags)
    }
}

/// `cafectl <command> --help` reached the command's flags: they are printed from their
/// declarations instead of the command running.
struct CommandHelp: Error {
    let flags: [CommandFlag]

    /// The command's own flags; the ones every command takes are in `cafectl help`.
    func text(_ words: [String]) -> String {
        let lines = ["cafectl \(words.joined(separator: " ")): " + (flags.isEmpty ? "no flags of its own" : "its flags"), ""]
            + CommandFlag.helpLines(flags)
            + ["", "every command also takes the endpoint flags, --timeout-ms, and --keys/--as (see cafectl help)"]
        return lines.joined(separator: "\n")
    }
}
