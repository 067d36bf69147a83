import Campus
import Foundation
import ServiceRuntime
import ZeroMQ

/// `load-test scenario` (also `load-test` with no subcommand): drives the Caffè Macs scenario
/// once and prints how long each step took.
public enum ScenarioCommand {
    /// Its options, in `--help` order.
    public static let specs: [OptionSpec] = [
        OptionSpec("ingest", .endpoint, default: "tcp://127.0.0.1:7410", help: "beacon-ingest request endpoint"),
        OptionSpec("orders", .endpoint, default: "tcp://127.0.0.1:7430", help: "order-service request endpoint"),
        OptionSpec("kitchen", .endpoint, default: "tcp://127.0.0.1:7440", help: "kitchen-display request endpoint"),
        OptionSpec("notify", .endpoint, default: "tcp://127.0.0.1:7450", help: "notification-service request endpoint"),
        OptionSpec("bus-sub", .endpoint, default: "tcp://127.0.0.1:7402", help: "the bus endpoint subscribers connect to"),
        OptionSpec("campus", .path, default: "deploy/campus.json", help: "the campus catalog the platform serves"),
        OptionSpec.seconds("timeout", default: 10, help: "seconds to wait for each effect on the bus"),
        OptionSpec("json", .path, default: "", help: "also write the measurements to this JSON file"),
    ] + LoadSecurity.specs
    /// The line `--help` starts with.
    public static let summary = "drive the Caffè Macs scenario once and time each step"

    /// Runs `load-test scenario` with `arguments` (after the command word, if any); the exit status.
    public static func main(arguments: [String]) -> Int32 {
        let config = subcommandConfiguration(program: "load-test scenario", summary: summary, specs: specs, arguments: arguments,
                                             usage: "load-test [scenario] [options]")
        let security = LoadSecurity.from(config)
        do {
            let catalog = try CampusCatalog.load(path: config.string("campus"))
            let driver = ScenarioDriver(
                context: try Context(),
                endpoints: .init(ingest: config.string("ingest"), orders: config.string("orders"), kitchen: config.string("kitchen"),
                                 notify: config.string("notify"), busSub: config.string("bus-sub")),
                catalog: catalog, timeout: config.double("timeout"), security: security)
            let results = try driver.run()
            let width = results.map(\.step.count).max() ?? 10
            print("step".padding(toLength: width, withPad: " ", startingAt: 0) + "   ms")
            for result in results {
                print(result.step.padding(toLength: width, withPad: " ", startingAt: 0) + String(format: " %7.2f", result.milliseconds))
            }
            if !config.string("json").isEmpty {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try encoder.encode(results).write(to: URL(fileURLWithPath: config.string("json")))
            }
            return 0
        } catch {
            logLine("load-test: \(error)")
            return 1
        }
    }
}
