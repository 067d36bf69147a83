import BeaconIngestServer
import Foundation
import ServiceRuntime

// beacon-ingest: takes batches from phones (ranging reports, fixes, device status), enforces
// authorization, smooths RSSI and publishes sightings and fixes partitioned by device shard.

let config = loadConfiguration(program: "beacon-ingest", summary: "ingress for phones: validates, enforces authorization, smooths RSSI",
                               specs: IngestSettings.specs)
// Start errors are JSON lines like every other log line: 2 for options it cannot run with, 1 otherwise.
let startLog = Logger(service: "beacon-ingest", instance: config[IngestSettings.common.instance])
let settings: IngestSettings
do {
    settings = try IngestSettings(config: config)
} catch {
    startLog.exitStart("invalid configuration", error: error, status: 2)
}
do {
    let host = try ServiceHost(options: IngestSettings.common, config: config)
    let service = IngestService(host: host, settings: settings)
    try service.start()
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
} catch {
    startLog.exitStart("start failed", error: error, status: 1)
}
