import Campus
import Foundation
import RegionMonitorCore
import ServiceRuntime

/// region-monitor's settings: every default is declared once, here (the engine's in
/// `RegionSettings`), and the options `--help` lists are built from them.
public struct RegionMonitorSettings: Sendable, Equatable {
    /// The request socket's port unless `--listen` says otherwise.
    public static let listenPort = 7420

    /// The campus catalog's path.
    public var campus = "deploy/campus.json"
    /// The built-in monitor holding the campus conditions: one name, shared with the services that read its events.
    public let monitor = CampusCatalog.monitorName
    /// Where beacon-ingest pushes location fixes.
    public var fixListen = "tcp://127.0.0.1:7425"
    /// How often the timer fires exits and dwell times.
    public var tickSeconds = 0.5
    /// Device shards, as beacon-ingest publishes them.
    public var shards = 1
    /// The shard this instance owns, as given ("" for every shard).
    public var shard = ""
    /// The engine's durations and limits.
    public var engine = RegionSettings()

    /// The defaults.
    public init() {}

    /// `s<shard>` for topics and source names of one shard; empty for every shard.
    public var shardTag: String { shard.isEmpty ? "" : "s\(shard)" }

    /// Every option region-monitor reads, with its default and help. The kinds check every range.
    public static var specs: [OptionSpec] {
        let d = RegionMonitorSettings()
        return ServiceHost.commonSpecs(service: "region-monitor", listenPort: listenPort) + [
            OptionSpec("campus", .path, default: d.campus, help: "the campus catalog: per café a beacon condition <id> and an area condition <id>.area"),
            OptionSpec("fix-listen", .endpoint, default: d.fixListen, help: "where beacon-ingest pushes location fixes (a direct channel: fixes never cross the bus; deployed: fixes only from beacon-ingest keys; plain: loopback only)"),
            .seconds("beacon-exit-seconds", default: d.engine.exitTimeout,
                     help: "a beacon condition becomes unsatisfied after this long without a matching sighting (unless it names its own)"),
            OptionSpec("hysteresis-meters", .measure(.nonNegative), default: OptionSpec.format(d.engine.hysteresis),
                       help: "leaving a circle needs a fix this far beyond its radius, uncertainty included (unless it names its own)"),
            .seconds("dwell-seconds", .nonNegative, default: d.engine.dwell,
                     help: "a device must be inside a circle this long before it is satisfied (unless it names its own)"),
            .seconds("nearest-freshness-seconds", default: d.engine.nearestFreshness, help: "how long a near/immediate sighting decides the nearest beacon"),
            .seconds("tick-seconds", default: d.tickSeconds, help: "how often the timer fires exits and dwell times"),
            .seconds("sighting-save-seconds", default: d.engine.sightingSaveInterval,
                     help: "a device still in range has its last matching sighting saved at least this often (or every quarter of its exit timeout if shorter; one that left, within 2 s), so exits fire on time after a restart"),
            .count("condition-limit", 1...100_000, default: d.engine.conditionLimit, help: "the most conditions one monitor may hold (monitor.conditionLimitExceeded beyond)"),
            .count("monitor-limit", 1...100_000, default: d.engine.monitorLimit, help: "the most monitors besides the campus one"),
            .seconds("confirm-window-seconds", default: d.engine.confirmWindow, help: "a fix confirms where a code was acquired only this close in time to it"),
            .seconds("fix-retention-seconds", default: d.engine.fixRetention, help: "fixes are kept this long, then deleted"),
            .count("shards", 1...256, default: d.shards, help: "number of device shards, as beacon-ingest publishes them"),
            OptionSpec("shard", .string, default: d.shard, help: "the shard this instance owns, 0…shards-1: it consumes only that shard's topics (empty: every shard)"),
        ]
    }

    /// Reads the settings from configuration read with `specs` (whose kinds have checked every
    /// range), refusing a `--shard` that is not one of `--shards`.
    public init(_ config: Configuration) throws(RegionSettingsError) {
        let shards = config.int("shards")
        let shard = config.string("shard")
        if !shard.isEmpty, Int(shard).map({ !(0..<shards).contains($0) }) ?? true {
            throw RegionSettingsError("--shard must be empty or 0…\(shards - 1), not \"\(shard.prefix(64))\"")
        }
        campus = config.string("campus")
        fixListen = config.string("fix-listen")
        tickSeconds = config.double("tick-seconds")
        self.shards = shards
        self.shard = shard
        engine.exitTimeout = config.double("beacon-exit-seconds")
        engine.hysteresis = config.double("hysteresis-meters")
        engine.dwell = config.double("dwell-seconds")
        engine.nearestFreshness = config.double("nearest-freshness-seconds")
        engine.sightingSaveInterval = config.double("sighting-save-seconds")
        engine.confirmWindow = config.double("confirm-window-seconds")
        engine.fixRetention = config.double("fix-retention-seconds")
        engine.conditionLimit = config.int("condition-limit")
        engine.monitorLimit = config.int("monitor-limit")
    }
}

/// A setting the service cannot run with; main logs it as the `error` of one JSON line and exits 2.
public struct RegionSettingsError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the option.
    public let message: String
    /// The message itself (the log line names the service).
    public var description: String { message }

    init(_ message: String) {
        self.message = message
    }
}
