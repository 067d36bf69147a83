import Campus
import Foundation
import ServiceRuntime
import ZeroMQ

/// `load-test run`: the open-loop, constant-rate generator (see `LoadRunner`).
enum RunCommand {
    static let specs: [OptionSpec] = [
        OptionSpec("rate", .number, default: "1000", help: "target sightings per second; sighting i is due at start + i / rate, whatever the replies do"),
        OptionSpec("duration", .number, default: "10", help: "seconds of measured load"),
        OptionSpec("warmup", .number, default: "0", help: "seconds of the same load before measuring (latencies not recorded, losses still counted)"),
        OptionSpec("devices", .integer, default: "500", help: "simulated phones; each reports its status first, then ranges and walks between cafés"),
        OptionSpec("batch", .integer, default: "50", help: "phone reports per ingest.batch request, as a gateway forwards them (1…1000)"),
        OptionSpec("order-rate", .number, default: "1", help: "orders per second, each reserved, placed, bumped and awaited as a notification (0: none)"),
        OptionSpec("ingest", .string, default: "tcp://127.0.0.1:7410", help: "beacon-ingest request endpoints, comma-separated; position k serves device shard k"),
        OptionSpec("region", .string, default: "tcp://127.0.0.1:7420", help: "region-monitor request endpoints, comma-separated (health: sightings.consumed)"),
        OptionSpec("orders", .endpoint, default: "tcp://127.0.0.1:7430", help: "order-service request endpoint"),
        OptionSpec("kitchen", .endpoint, default: "tcp://127.0.0.1:7440", help: "kitchen-display request endpoint"),
        OptionSpec("notify", .endpoint, default: "tcp://127.0.0.1:7450", help: "notification-service request endpoint"),
        OptionSpec("bus-sub", .endpoint, default: "tcp://127.0.0.1:7402", help: "the bus endpoint subscribers connect to"),
        OptionSpec("campus", .path, default: "deploy/campus.json", help: "the campus catalog the platform serves (beacon UUID, majors, minors, menus)"),
        OptionSpec("json", .path, default: "", help: "also write the report to this JSON file"),
        OptionSpec("timeout", .number, default: "10", help: "seconds to wait for a reply or an effect before counting it lost"),
        OptionSpec("beacon-exit-seconds", .number, default: "30", help: "region-monitor's exit timeout: decides which arrivals must produce a region event"),
        OptionSpec("dwell", .number, default: "15", help: "mean seconds a phone stays at a café before walking to another"),
        OptionSpec("seed", .integer, default: "1", help: "seed of the phones' walks and signal noise"),
    ]
    static let summary = "open-loop constant-rate load: sightings, region events and orders, with latency percentiles and loss"

    static func main(arguments: [String]) -> Int32 {
        let config = subcommandConfiguration(program: "load-test run", summary: summary, specs: specs, arguments: arguments, usage: "load-test run [options]")
        func endpoints(_ name: String) -> [String] {
            let list = config.string(name).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !list.isEmpty, list.allSatisfy({ ["tcp://", "ipc://", "inproc://"].contains(where: $0.hasPrefix) }) else {
                usageFailure("load-test run: --\(name) must be comma-separated ZeroMQ endpoints like tcp://127.0.0.1:7410, not \"\(config.string(name))\"")
            }
            return list
        }
        let settings = RunSettings(
            rate: config.double("rate"), duration: config.double("duration"), warmup: config.double("warmup"), devices: config.int("devices"),
            batch: config.int("batch"), orderRate: config.double("order-rate"), ingest: endpoints("ingest"), region: endpoints("region"),
            orders: config.string("orders"), kitchen: config.string("kitchen"), notify: config.string("notify"), busSub: config.string("bus-sub"),
            timeout: config.double("timeout"), beaconExitSeconds: config.double("beacon-exit-seconds"), dwell: config.double("dwell"),
            seed: UInt64(truncatingIfNeeded: config.int("seed")))
        if settings.rate <= 0 { usageFailure("load-test run: --rate must be above 0") }
        if settings.duration <= 0 { usageFailure("load-test run: --duration must be above 0") }
        if settings.warmup < 0 { usageFailure("load-test run: --warmup must not be negative") }
        if settings.devices < 1 { usageFailure("load-test run: --devices must be at least 1") }
        if !(1...1000).contains(settings.batch) { usageFailure("load-test run: --batch must be 1…1000 (ingest.batch carries at most 1000 reports)") }
        if settings.orderRate < 0 { usageFailure("load-test run: --order-rate must not be negative") }
        if settings.timeout <= 0 { usageFailure("load-test run: --timeout must be above 0") }
        if settings.dwell <= 0 { usageFailure("load-test run: --dwell must be above 0") }
        do {
            let catalog = try CampusCatalog.load(path: config.string("campus"))
            let runID = "lt" + String(format: "%06x", UInt32.random(in: 0...0xFF_FFFF))
            let runner = LoadRunner(settings: settings, catalog: catalog, context: try Context(), runID: runID, log: logLine)
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
