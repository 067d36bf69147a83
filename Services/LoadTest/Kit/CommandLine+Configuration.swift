import Foundation
import ServiceRuntime

/// Reads a subcommand's configuration from `arguments` (flags, then environment, then defaults):
/// prints its help and exits 0 on `--help`; prints one line and exits 2 on a bad flag or value.
func subcommandConfiguration(program: String, summary: String, specs: [OptionSpec], arguments: [String], usage: String) -> Configuration {
    do {
        return try Configuration(program: program, specs: specs, arguments: arguments, environment: ProcessInfo.processInfo.environment)
    } catch is HelpRequested {
        print(Configuration.helpText(program: program, summary: summary, specs: specs, usage: usage))
        exit(0)
    } catch {
        usageFailure("\(error)")
    }
}

/// One line on stderr, exit 2: the command line was wrong.
public func usageFailure(_ message: String) -> Never {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
    exit(2)
}

/// A line on stderr (progress and errors; stdout carries the results).
func logLine(_ message: String) {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
}
