import Campus
import Foundation
import ServiceRuntime
import ZeroMQ

/// `load-test run`: the open-loop, constant-rate generator (see `LoadRunner`).
public enum RunCommand {
    static let specs: [OptionSpec] = [
        OptionSpec("rate", .rate(.positive), default: "1000", help: "target sightings per second; sighting i is due at start + i / rate, whatever the replies do"),
        OptionSpec.seconds("duration", default: 10, help: "seconds of measured load"),
        OptionSpec.seconds("warmup", .nonNegative, default: 0, help: "seconds of the same load before measuring (latencies not recorded, losses still counted)"),
        OptionSpec.count("devices", 1...10_000_000, default: 500, help: "simulated phones; each reports its status first, then ranges and walks between cafés"),
        OptionSpec.count("batch", 1...1_000, default: 50, help: "phone reports per ingest.batch request, as a gateway forwards them (1…1000)"),
        OptionSpec("order-rate", .rate(.nonNegative), default: "1", help: "orders per second, each reserved, placed, bumped and awaited as a notification (0: none)"),
        OptionSpec("ingest", .endpointList, default: "tcp://127.0.0.1:7410", help: "beacon-ingest request endpoints, comma-separated; position k serves device shard k (deployed: name@tcp://… names a shard's principal)"),
        OptionSpec("region", .endpointList, default: "tcp://127.0.0.1:7420", help: "region-monitor request endpoints, comma-separated (health: sightings.consumed)"),
        OptionSpec("orders", .endpoint, default: "tcp://127.0.0.1:7430", help: "order-service request endpoint"),
        OptionSpec("kitchen", .endpoint, default: "tcp://127.0.0.1:7440", help: "kitchen-display request endpoint"),
        OptionSpec("notify", .endpoint, default: "tcp://127.0.0.1:7450", help: "notification-service request endpoint"),
        OptionSpec("bus-sub", .endpoint, default: "tcp://127.0.0.1:7402", help: "the bus endpoint subscribers connect to"),
        OptionSpec("bus", .endpoint, default: "tcp://127.0.0.1:7403", help: "the bus's health endpoint (its CPU is counted with the sighting pipeline's)"),
        OptionSpec("campus", .path, default: "deploy/campus.json", help: "the campus catalog the platform serves (beacon UUID, majors, minors, menus)"),
        OptionSpec("json", .path, default: "", help: "also write the report to this JSON file"),
        OptionSpec.seconds("timeout", default: 10, help: "seconds to wait for a reply or an effect before counting it lost"),
        OptionSpec.seconds("retry-seconds", .nonNegative, default: 1,
                           help: "an order, reservation or bump without a reply is sent again, unchanged (same idempotency key), after this long, doubling each time, until --timeout (0: never)"),
        OptionSpec.seconds("beacon-exit-seconds", default: 30, help: "region-monitor's exit timeout: decides which arrivals must produce a region event"),
        OptionSpec.seconds("dwell", default: 15, help: "mean seconds a phone stays at a café before walking to another"),
        OptionSpec.count("seed", default: 1, help: "seed of the phones' walks and signal noise"),
    ] + LoadSecurity.specs
    static let summary = "open-loop constant-rate load: sightings, region events and orders, with latency percentiles and loss"

    /// Runs `load-test run` with `arguments` (after the command word); the exit status.
    public static func main(arguments: [String]) -> Int32 {
        let config = subcommandConfiguration(program: "load-test run", summary: summary, specs: specs, arguments: arguments, usage: "load-test run [options]")
        let settings = RunSettings(
            rate: config.double("rate"), duration: config.double("duration"), warmup: config.double("warmup"), devices: config.int("devices"),
            batch: config.int("batch"), orderRate: config.double("order-rate"), ingest: config.list("ingest"), region: config.list("region"),
            orders: config.string("orders"), kitchen: config.string("kitchen"), notify: config.string("notify"), busSub: config.string("bus-sub"), bus: config.string("bus"),
            timeout: config.double("timeout"), retrySeconds: config.double("retry-seconds"), beaconExitSeconds: config.double("beacon-exit-seconds"), dwell: config.double("dwell"),
            seed: UInt64(truncatingIfNeeded: config.int("seed")))
        let security = LoadSecurity.from(config)
        do {
            let catalog = try CampusCatalog.load(path: config.string("campus"))
            let runID = "lt" + String(format: "%06x", UInt32.random(in: 0...0xFF_FFFF))
            let runner = LoadRunner(settings: settings, catalog: catalog, context: try Context(), runID: runID, security: security, log: logLine)
            let report = try runner.run()
            print(report.table)
            if !config.string("json").isEmpty {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try encoder.encode(report).write(to: URL(fileURLWithPath: config.string("json")))
            }
            return 0
        } catch {
            logLine("load-test: \(error)")
            return 1
        }
    }
}
