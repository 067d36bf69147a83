import Campus
import Foundation
import RegionMonitorCore
import ServiceRuntime

// region-monitor: CLMonitor semantics for every device on the campus. Consumes sightings and
// device status from the bus and fixes from beacon-ingest's direct channel; publishes region
// events (states and identifiers, never coordinates); answers monitor management, nearest-beacon
// and App Clip location confirmation requests.

let specs = ServiceHost.commonSpecs(service: "region-monitor", listenPort: 7420) + [
    OptionSpec("campus", .path, default: "deploy/campus.json", help: "the campus catalog: per café a beacon condition <id> and an area condition <id>.area"),
    OptionSpec("monitor", .string, default: "campus", help: "the name of the built-in monitor holding the campus conditions"),
    OptionSpec("fix-listen", .endpoint, default: "tcp://127.0.0.1:7425", help: "where beacon-ingest pushes location fixes (a direct channel: fixes never cross the bus)"),
    OptionSpec("beacon-exit-seconds", .number, default: "30", help: "a beacon condition becomes unsatisfied after this long without a matching sighting (unless it names its own)"),
    OptionSpec("hysteresis-meters", .number, default: "20", help: "leaving a circle needs a fix this far beyond its radius, uncertainty included (unless it names its own)"),
    OptionSpec("dwell-seconds", .number, default: "0", help: "a device must be inside a circle this long before it is satisfied (unless it names its own)"),
    OptionSpec("nearest-freshness-seconds", .number, default: "10", help: "how long a near/immediate sighting decides the nearest beacon"),
    OptionSpec("tick-seconds", .number, default: "0.5", help: "how often the timer fires exits and dwell times"),
    OptionSpec("condition-limit", .integer, default: "20", help: "the most conditions one monitor may hold (monitor.conditionLimitExceeded beyond)"),
    OptionSpec("monitor-limit", .integer, default: "64", help: "the most monitors besides the campus one"),
    OptionSpec("confirm-window-seconds", .number, default: "60", help: "a fix confirms where a code was acquired only this close in time to it"),
    OptionSpec("fix-retention-seconds", .number, default: "900", help: "fixes are kept this long, then deleted"),
    OptionSpec("shards", .integer, default: "1", help: "number of device shards, as beacon-ingest publishes them"),
    OptionSpec("shard", .string, default: "", help: "the shard this instance owns, 0…shards-1: it consumes only that shard's topics (empty: every shard)"),
]
let config = loadConfiguration(program: "region-monitor", summary: "monitors, conditions and records for every device (CLMonitor semantics)", specs: specs)

func refuse(_ message: String) -> Never {
    FileHandle.standardError.write(Data("region-monitor: \(message)\n".utf8))
    exit(2)
}

if !config.string("shard").isEmpty, Int(config.string("shard")).map({ !(0..<max(1, config.int("shards"))).contains($0) }) ?? true {
    refuse("--shard must be empty or 0…\(max(1, config.int("shards")) - 1), not \"\(config.string("shard"))\"")
}
for name in ["beacon-exit-seconds", "nearest-freshness-seconds", "tick-seconds", "confirm-window-seconds", "fix-retention-seconds"] where !(config.double(name) > 0) {
    refuse("--\(name) must be more than 0")
}
for name in ["hysteresis-meters", "dwell-seconds"] where !(config.double(name) >= 0) {
    refuse("--\(name) must be 0 or more")
}
for name in ["condition-limit", "monitor-limit"] where config.int(name) < 1 {
    refuse("--\(name) must be 1 or more")
}

var settings = RegionSettings()
settings.exitTimeout = config.double("beacon-exit-seconds")
settings.hysteresis = config.double("hysteresis-meters")
settings.dwell = config.double("dwell-seconds")
settings.nearestFreshness = config.double("nearest-freshness-seconds")
settings.confirmWindow = config.double("confirm-window-seconds")
settings.fixRetention = config.double("fix-retention-seconds")
settings.conditionLimit = config.int("condition-limit")
settings.monitorLimit = config.int("monitor-limit")

do {
    let catalog = try CampusCatalog.load(path: config.string("campus"))
    let host = try ServiceHost(service: "region-monitor", config: config)
    let service = RegionService(host: host, catalog: catalog, settings: RegionService.Settings(
        campusMonitor: config.string("monitor"), shard: config.string("shard").isEmpty ? "" : "s\(config.string("shard"))",
        fixListen: config.string("fix-listen"), tickSeconds: config.double("tick-seconds"), engine: settings))
    try service.start()
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
} catch {
    FileHandle.standardError.write(Data("region-monitor: \(error)\n".utf8))
    exit(1)
}
