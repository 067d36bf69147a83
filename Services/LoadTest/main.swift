import Campus
import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

// load-test: drives the platform from outside, through its sockets, and reports what it measured.
// This version drives the Caffè Macs scenario once (sighting → region event, order → ready
// notification with an automatic bump); the constant-rate harness comes with the load-test issue.

let specs: [OptionSpec] = [
    OptionSpec("ingest", .endpoint, default: "tcp://127.0.0.1:7410", help: "beacon-ingest request endpoint"),
    OptionSpec("orders", .endpoint, default: "tcp://127.0.0.1:7430", help: "order-service request endpoint"),
    OptionSpec("kitchen", .endpoint, default: "tcp://127.0.0.1:7440", help: "kitchen-display request endpoint"),
    OptionSpec("notify", .endpoint, default: "tcp://127.0.0.1:7450", help: "notification-service request endpoint"),
    OptionSpec("bus-sub", .endpoint, default: "tcp://127.0.0.1:7402", help: "the bus endpoint subscribers connect to"),
    OptionSpec("campus", .path, default: "deploy/campus.json", help: "the campus catalog the platform serves"),
    OptionSpec("timeout", .number, default: "10", help: "seconds to wait for each effect on the bus"),
    OptionSpec("json", .path, default: "", help: "also write the measurements to this JSON file"),
]
if CommandLine.arguments.dropFirst().first == "bench" { exit(Benchmarks.run(arguments: Array(CommandLine.arguments.dropFirst(2)))) }
let config = loadConfiguration(program: "load-test", summary: "drive the Campus Café platform and measure it", specs: specs)

do {
    let catalog = try CampusCatalog.load(path: config.string("campus"))
    let driver = ScenarioDriver(
        context: try Context(),
        endpoints: .init(ingest: config.string("ingest"), orders: config.string("orders"), kitchen: config.string("kitchen"),
                         notify: config.string("notify"), busSub: config.string("bus-sub")),
        catalog: catalog, timeout: config.double("timeout"))
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
} catch {
    FileHandle.standardError.write(Data("load-test: \(error)\n".utf8))
    exit(1)
}
