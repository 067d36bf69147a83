import BeaconIngestServer
import Foundation
import KitchenServer
import NotifyServer
import OrderServer
import RegionMonitorServer
import ServiceRuntime

/// The option parser every executable runs at start (flags, environment, typed kinds) and each
/// service's settings read from it; and the tokenizer and command layer `cafectl` reads its commands with.
///
/// An input is a program selector (its first byte) and NUL-separated words: `CAFE_NAME=value`
/// words are the environment, the others the arguments.
enum OptionsTarget {
    /// A program: its specs and its settings, read from a configuration.
    struct Program: Sendable {
        let name: String
        let specs: [OptionSpec]
        let settings: @Sendable (Configuration) throws -> Void
    }

    static let programs: [Program] = [
        Program(name: "beacon-ingest", specs: IngestSettings.specs) { _ = try IngestSettings(config: $0) },
        Program(name: "region-monitor", specs: RegionMonitorSettings.specs) { _ = try RegionMonitorSettings($0) },
        Program(name: "order-service", specs: OrderSettings.specs) { _ = OrderSettings($0) },
        Program(name: "kitchen-display", specs: KitchenDisplaySettings.specs) { _ = KitchenDisplaySettings(config: $0) },
        Program(name: "notification-service", specs: NotifySettings.specs) { _ = NotifySettings($0) },
    ]

    /// The program index, the arguments and the environment an input stands for.
    static func split(_ input: Data) -> (program: Int, arguments: [String], environment: [String: String]) {
        guard let first = input.first else { return (0, [], [:]) }
        var arguments: [String] = [], environment: [String: String] = [:]
        for word in input.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map({ String(decoding: $0, as: UTF8.self) }) {
            if word.hasPrefix("CAFE_"), let equals = word.firstIndex(of: "=") {
                environment[String(word[..<equals])] = String(word[word.index(after: equals)...])
            } else {
                arguments.append(word)
            }
        }
        return (Int(first) % (programs.count + 1), arguments, environment)
    }

    /// An input for `program` from its arguments and environment.
    static func input(program: Int, _ arguments: [String], environment: [String] = []) -> Data {
        Data([UInt8(program)]) + Data((arguments + environment).joined(separator: "\0").utf8)
    }

    static func make() -> FuzzTarget {
        FuzzTarget("options", "command lines and environments through Configuration and every service's settings; cafectl's tokenizer and command layer",
                   seeds: { seeds() }) { input in
            let (index, arguments, environment) = split(input)
            guard index < programs.count else {
                // cafectl: the tokenizer alone, with each way a flag can take its value, then the command layer.
                for form in [CommandLineTokens.Form.value, .boolean, .switchOnly] {
                    do {
                        let tokens = try CommandLineTokens(arguments) { _ in form }
                        if tokens.flags.count + tokens.words.count > arguments.count { return "the tokenizer made more of \(arguments) than was given: \(tokens)" }
                    } catch {}
                }
                return commandLine(arguments, environment: environment)
            }
            let program = programs[index]
            let config: Configuration
            do {
                config = try Configuration(program: program.name, specs: program.specs, arguments: arguments, environment: environment)
            } catch is ConfigurationError {
                return nil
            } catch is HelpRequested {
                return nil
            } catch {
                return "\(program.name): Configuration threw \(type(of: error)): \(error)"
            }
            // Every value read passed its kind's check: the settings must take them without trapping
            // (a refusal of a combination, such as a shard beyond the shards, is theirs to make).
            do { try program.settings(config) } catch {}
            return nil
        }
    }

    /// A command's flags as cafectl declares them: a switch, a repeated flag, a number in a
    /// range, a choice, one that may be left out, one read from the environment.
    static let pretty = Option.flag("pretty", default: false, help: "")
    static let item = Option("item", default: "", help: "")
    static let count = Option.count("count", 1...10_000, default: 1, help: "")
    static let since = Option<UInt64?>.optional("since-seq", .count(0...Int.max), help: "") { UInt64($0) }
    static let orders = Option("orders", .endpoint, default: "tcp://127.0.0.1:7430", help: "")
    static let commandFlags = [CommandFlag(pretty, .switchOnly), CommandFlag(item, .repeated), CommandFlag(count), CommandFlag(since),
                               CommandFlag(orders, environment: "CAFE_ORDERS_ENDPOINT")]

    /// A command line through the command layer: refused or read, never trapping.
    static func commandLine(_ arguments: [String], environment: [String: String]) -> String? {
        guard let line = try? CommandArguments(arguments, switches: [commandFlags[0]], seeAlso: "fuzz"),
              let values = try? line.values(taking: commandFlags, environment: environment) else { return nil }
        if values[count] < 1 || values[count] > 10_000 { return "--count \(values[count]) passed its range check" }
        _ = (values[pretty], values.every(item), values[since], values[orders])
        return nil
    }

    /// Per program: its defaults, each option given as a flag (`--name value` and `--name=value`)
    /// and as an environment variable; and a few cafectl command lines.
    static func seeds() -> [Data] {
        var seeds: [Data] = []
        for (index, program) in programs.enumerated() {
            seeds.append(input(program: index, []))
            for spec in program.specs {
                let value = spec.defaultValue.isEmpty ? "1" : spec.defaultValue
                seeds.append(input(program: index, ["--\(spec.name)", value]))
                seeds.append(input(program: index, ["--\(spec.name)=\(value)", "--help"]))
                seeds.append(input(program: index, [], environment: ["\(spec.environmentName)=\(value)"]))
            }
        }
        for line in [["order", "place", "--cafe", "caffe-macs", "--item", "burger:2"], ["tail", "--pretty", "order.", "--since-seq", "5"], ["--", "--x", "y"]] {
            seeds.append(input(program: programs.count, line))
        }
        return seeds
    }
}
