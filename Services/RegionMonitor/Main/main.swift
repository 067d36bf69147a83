import RegionMonitorServer
import ServiceRuntime

// region-monitor: CLMonitor semantics for every device on the campus. Consumes sightings and
// device status from the bus and fixes from beacon-ingest's direct channel; publishes region
// events (states and identifiers, never coordinates); answers monitor management, nearest-beacon
// and App Clip location confirmation requests. A missing or unreadable campus catalog is a start
// error (exit 1), a setting it cannot run with an invalid configuration (exit 2).

ServiceLaunch(RegionMonitorSettings.common, summary: "monitors, conditions and records for every device (CLMonitor semantics)",
              specs: RegionMonitorSettings.specs, settings: RegionMonitorSettings.init).run { host, settings in
    let source = try CatalogSource(path: settings.campus, now: host.clock.now())
    let service = RegionService(host: host, catalog: source.catalog, settings: settings)
    try service.start()
    // SIGHUP and catalog.reload switch to the file's new catalog when it validates whole.
    source.onChange { service.use($0) }
    source.attach(to: host)
    return service
}
