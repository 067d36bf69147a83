import Foundation
import ServiceRuntime

// beacon-ingest: takes batches from phones (ranging reports, fixes, device status), enforces
// authorization, smooths RSSI and publishes sightings and fixes partitioned by device shard.

let specs = ServiceHost.commonSpecs(service: "beacon-ingest", listenPort: 7410) + [
    OptionSpec("shards", .integer, default: "1", help: "number of device shards in sighting/location/device topics (the same on every instance)"),
    OptionSpec("fix-endpoints", .string, default: "tcp://127.0.0.1:7425",
               help: "region-monitor's fix endpoints, comma-separated: one for every shard, or one per shard in shard order (fixes go straight there, never over the bus)"),
    OptionSpec("shard", .string, default: "", help: "the shard this instance owns, 0…shards-1; devices of other shards are refused with ingest.wrongShard (empty: every shard)"),
    OptionSpec("smoothing-window-seconds", .number, default: "10", help: "how long a raw RSSI reading counts in its beacon's average (0.5 for a walk replayed at 20× speed)"),
]
let config = loadConfiguration(program: "beacon-ingest", summary: "ingress for phones: validates, enforces authorization, smooths RSSI", specs: specs)
let window = config.double("smoothing-window-seconds")
guard window.isFinite, window > 0 else {
    FileHandle.standardError.write(Data("beacon-ingest: --smoothing-window-seconds must be a positive number, not \"\(config.string("smoothing-window-seconds"))\"\n".utf8))
    exit(2)
}
do {
    let host = try ServiceHost(service: "beacon-ingest", config: config)
    let shards = max(1, config.int("shards"))
    let owned = config.string("shard")
    guard owned.isEmpty || (Int(owned).map { (0..<shards).contains($0) } ?? false) else {
        FileHandle.standardError.write(Data("beacon-ingest: --shard must be empty or 0…\(shards - 1), not \"\(owned)\"\n".utf8))
        exit(2)
    }
    let fixEndpoints = config.string("fix-endpoints").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    guard fixEndpoints.count == 1 || fixEndpoints.count == shards else {
        FileHandle.standardError.write(Data("beacon-ingest: --fix-endpoints must name one endpoint, or one per shard (\(shards)), not \(fixEndpoints.count)\n".utf8))
        exit(2)
    }
    let service = IngestService(host: host, shards: shards, ownedShard: Int(owned), smoothingWindow: window, fixEndpoints: fixEndpoints)
    try service.start()
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
} catch {
    FileHandle.standardError.write(Data("beacon-ingest: \(error)\n".utf8))
    exit(1)
}
