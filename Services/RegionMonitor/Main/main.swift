import Campus
import Foundation
import RegionMonitorServer
import ServiceRuntime

// region-monitor: CLMonitor semantics for every device on the campus. Consumes sightings and
// device status from the bus and fixes from beacon-ingest's direct channel; publishes region
// events (states and identifiers, never coordinates); answers monitor management, nearest-beacon
// and App Clip location confirmation requests.

let config = loadConfiguration(program: "region-monitor", summary: "monitors, conditions and records for every device (CLMonitor semantics)",
                               specs: RegionMonitorSettings.specs)
// Start errors are JSON lines like every other log line: 2 for options it cannot run with, 1
// otherwise (a missing or unreadable campus catalog among them).
let startLog = Logger(service: "region-monitor", instance: config[RegionMonitorSettings.common.instance])
let settings: RegionMonitorSettings
do {
    settings = try RegionMonitorSettings(config)
} catch {
    startLog.exitStart("invalid configuration", error: error, status: 2)
}
do {
    let host = try ServiceHost(options: RegionMonitorSettings.common, config: config)
    let source = try CatalogSource(path: settings.campus, now: host.clock.now())
    let service = RegionService(host: host, catalog: source.catalog, settings: settings)
    try service.start()
    // SIGHUP and catalog.reload switch to the file's new catalog when it validates whole.
    source.onChange { service.use($0) }
    source.attach(to: host)
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
} catch {
    startLog.exitStart("start failed", error: error, status: 1)
}
