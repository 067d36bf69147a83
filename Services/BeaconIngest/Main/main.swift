import BeaconIngestServer
import ServiceRuntime

// beacon-ingest: takes batches from phones (ranging reports, fixes, device status), enforces
// authorization, smooths RSSI and publishes sightings and fixes partitioned by device shard.

ServiceLaunch(IngestSettings.common, summary: "ingress for phones: validates, enforces authorization, smooths RSSI",
              specs: IngestSettings.specs, settings: IngestSettings.init(config:)).run { host, settings in
    let service = IngestService(host: host, settings: settings)
    try service.start()
    return service
}
