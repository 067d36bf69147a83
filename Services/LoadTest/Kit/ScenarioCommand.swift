import Campus
import Foundation
import ServiceRuntime
import ZeroMQ

/// `load-test scenario` (also `load-test` with no subcommand): drives the Caffè Macs scenario
/// once and prints how long each step took.
public enum ScenarioCommand {
    static let ingest = Option<String>("ingest", .endpoint, default: "tcp://127.0.0.1:7410", help: "beacon-ingest request endpoint")
    static let campus = Option<String>("campus", .path, default: "deploy/campus.json", help: "the campus catalog the platform serves")
    static let timeout = Option.seconds("timeout", default: 10, help: "seconds to wait for each effect on the bus")
    static let json = Option<String>("json", .path, default: "", help: "also write the measurements to this JSON file")

    /// Its options, in `--help` order.
    public static let specs: [OptionSpec] = [
        ingest.spec, EndpointOptions.orders.spec, EndpointOptions.kitchen.spec, EndpointOptions.notify.spec, EndpointOptions.busSub.spec,
        campus.spec, timeout.spec, json.spec,
    ] + LoadSecurity.specs
    /// The line `--help` starts with.
    public static let summary = "drive the Caffè Macs scenario once and time each step"

    /// Runs `load-test scenario` with `arguments` (after the command word, if any); the exit status.
    public static func main(arguments: [String]) -> Int32 {
        let config = subcommandConfiguration(program: "load-test scenario", summary: summary, specs: specs, arguments: arguments,
                                             usage: "load-test [scenario] [options]")
        let security = LoadSecurity.from(config)
        do {
            let catalog = try CampusCatalog.load(path: config[campus])
            let driver = ScenarioDriver(
                context: try Context(),
                endpoints: .init(ingest: config[ingest], orders: config[EndpointOptions.orders], kitchen: config[EndpointOptions.kitchen],
                                 notify: config[EndpointOptions.notify], busSub: config[EndpointOptions.busSub]),
                catalog: catalog, timeout: config[timeout], security: security)
            let results = try driver.run()
            let width = results.map(\.step.count).max() ?? 10
            print("step".padding(toLength: width, withPad: " ", startingAt: 0) + "   ms")
            for result in results {
                print(result.step.padding(toLength: width, withPad: " ", startingAt: 0) + String(format: " %7.2f", result.milliseconds))
            }
            if !config[json].isEmpty { try writeJSON(results, to: config[json]) }
            return 0
        } catch {
            logLine("load-test: \(error)")
            return 1
        }
    }
}
