import Foundation
import ServiceRuntime

// beacon-ingest: takes batches from phones (ranging reports, fixes, device status), enforces
// authorization, smooths RSSI and publishes sightings and fixes partitioned by device shard.

let specs = ServiceHost.commonSpecs(service: "beacon-ingest", listenPort: 7410) + [
    OptionSpec("shards", .integer, default: "1", help: "number of device shards in sighting/location/device topics"),
]
let config = loadConfiguration(program: "beacon-ingest", summary: "ingress for phones: validates, enforces authorization, smooths RSSI", specs: specs)
do {
    let host = try ServiceHost(service: "beacon-ingest", config: config)
    let service = IngestService(host: host, shards: max(1, config.int("shards")))
    try service.start()
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
} catch {
    FileHandle.standardError.write(Data("beacon-ingest: \(error)\n".utf8))
    exit(1)
}
