import Campus
import Foundation
import ServiceRuntime

// region-monitor: CLMonitor semantics for every device on the campus. Consumes sightings, fixes
// and device status; publishes region events (states and identifiers, never coordinates).

let specs = ServiceHost.commonSpecs(service: "region-monitor", listenPort: 7420) + [
    OptionSpec("campus", .path, default: "deploy/campus.json", help: "the campus catalog; one beacon condition per café"),
    OptionSpec("monitor", .string, default: "campus", help: "the name of the monitor holding the campus conditions"),
    OptionSpec("beacon-exit-seconds", .number, default: "30", help: "a beacon condition becomes unsatisfied after this long without a matching sighting"),
    OptionSpec("shards", .integer, default: "1", help: "number of device shards, as beacon-ingest publishes them"),
    OptionSpec("shard", .string, default: "", help: "the shard this instance owns, 0…shards-1: it consumes only that shard's topics (empty: every shard)"),
]
let config = loadConfiguration(program: "region-monitor", summary: "monitors, conditions and records for every device (CLMonitor semantics)", specs: specs)
if !config.string("shard").isEmpty, Int(config.string("shard")).map({ !(0..<max(1, config.int("shards"))).contains($0) }) ?? true {
    FileHandle.standardError.write(Data("region-monitor: --shard must be empty or 0…\(max(1, config.int("shards")) - 1), not \"\(config.string("shard"))\"\n".utf8))
    exit(2)
}
do {
    let catalog = try CampusCatalog.load(path: config.string("campus"))
    let host = try ServiceHost(service: "region-monitor", config: config)
    let service = RegionService(host: host, catalog: catalog, monitor: config.string("monitor"),
                      exitTimeout: config.double("beacon-exit-seconds"),
                                shard: config.string("shard").isEmpty ? "" : "s\(config.string("shard"))")
    try service.start()
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
} catch {
    FileHandle.standardError.write(Data("region-monitor: \(error)\n".utf8))
    exit(1)
}
