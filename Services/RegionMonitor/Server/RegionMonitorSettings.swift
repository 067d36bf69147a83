import Campus
import Foundation
import RegionMonitorCore
import ServiceRuntime

/// region-monitor's settings. Each option is declared once, below, with its default, range and
/// help: its own settings start from their options' defaults, and the engine's options take
/// theirs from `RegionSettings` (the Core declares those, knowing nothing of options).
public struct RegionMonitorSettings: Sendable, Equatable {
    /// The request socket's port unless `--listen` says otherwise.
    public static let listenPort = 7420

    /// The campus catalog's path.
    public var campus = Self.campusOption.defaultValue
    /// The built-in monitor holding the campus conditions: one name, shared with the services that read its events.
    public let monitor = CampusCatalog.monitorName
    /// Where beacon-ingest pushes location fixes.
    public var fixListen = Self.fixListenOption.defaultValue
    /// How often the timer fires exits and dwell times.
    public var tickSeconds = Self.tickOption.defaultValue
    /// Device shards, as beacon-ingest publishes them.
    public var shards = Self.shardsOption.defaultValue
    /// The shard this instance owns, as given ("" for every shard).
    public var shard = Self.shardOption.defaultValue
    /// The engine's durations and limits.
    public var engine = RegionSettings()

    /// The defaults.
    public init() {}

    /// `s<shard>` for topics and source names of one shard; empty for every shard.
    public var shardTag: String { shard.isEmpty ? "" : "s\(shard)" }

    /// The engine's defaults, which its options show.
    private static let engineDefaults = RegionSettings()

    /// The options every service reads, with region-monitor's name and request port.
    /// Region events (and nearest answers) say where phones are now, about 1,800 a second from 10,000
    /// walking phones: they are kept for replay 5 minutes (about 200 MB then), not a week.
    public static let common = CommonOptions(service: "region-monitor", listenPort: listenPort, replayWindowSeconds: 300)
    public static let campusOption = Option<String>("campus", .path, default: "deploy/campus.json",
                                                    help: "the campus catalog: per café a beacon condition <id> and an area condition <id>.area")
    public static let fixListenOption = Option<String>("fix-listen", .endpoint, default: "tcp://127.0.0.1:7425",
                                                       help: "where beacon-ingest pushes location fixes (a direct channel: fixes never cross the bus; deployed: fixes only from beacon-ingest keys; plain: loopback only)")
    public static let exitOption = Option.seconds("beacon-exit-seconds", default: engineDefaults.exitTimeout,
                                                  help: "a beacon condition becomes unsatisfied after this long without a matching sighting (unless it names its own)")
    public static let hysteresisOption = Option.measure("hysteresis-meters", .nonNegative, default: engineDefaults.hysteresis,
                                                        help: "leaving a circle needs a fix this far beyond its radius, uncertainty included, also from unknown when it was last decided satisfied (unless the circle names its own)")
    public static let dwellOption = Option.seconds("dwell-seconds", .nonNegative, default: engineDefaults.dwell,
                                                   help: "a device must be inside a circle this long before it is satisfied; not to return from unknown when it was last decided satisfied (unless the circle names its own)")
    public static let nearestFreshnessOption = Option.seconds("nearest-freshness-seconds", default: engineDefaults.nearestFreshness,
                                                              help: "the nearest beacon is the nearest of those whose latest sighting within this long was near/immediate; the answer ends this long after its beacon's last near/immediate sighting, even while it is still heard far (then the nearest still near, or none)")
    public static let nearestMarginOption = Option.measure("nearest-margin-db", .nonNegative, default: engineDefaults.nearestMargin,
                                                           help: "while another café's beacon is heard, a café is named only when its beacon's mean RSSI (over beacon-ingest's --evidence-seconds) leads every other café's by this many dB; cafés within it are the answer's candidates")
    public static let nearestReadingsOption = Option.count("nearest-readings", 1...1_000, default: engineDefaults.nearestReadings,
                                                           help: "how many readings that leading mean must be of")
    public static let nearestMovedOption = Option.measure("nearest-moved-db", .nonNegative, default: engineDefaults.nearestMovedMargin,
                                                          help: "a named café is no longer named while another café's near beacon is this many dB nearer by the latest smoothed readings (the phone walked on)")
    public static let nearestAloneOption = Option.count("nearest-alone-readings", 1...1_000, default: engineDefaults.nearestAloneReadings,
                                                        help: "how many readings of a near beacon name its café when no other café's beacon is heard")
    public static let tickOption = Option.seconds("tick-seconds", default: 0.5, help: "how often the timer's full pass runs (what falls due is also taken every 2 ms)")
    public static let sightingSaveOption = Option.seconds("sighting-save-seconds", default: engineDefaults.sightingSaveInterval,
                                                          help: "a device still in range has its last matching sighting saved at least this often (or every quarter of its exit timeout if shorter; one that left, within 2 s), so exits fire on time after a restart")
    public static let conditionLimitOption = Option.count("condition-limit", 1...100_000, default: engineDefaults.conditionLimit,
                                                          help: "the most conditions one monitor may hold (monitor.conditionLimitExceeded beyond)")
    public static let monitorLimitOption = Option.count("monitor-limit", 1...100_000, default: engineDefaults.monitorLimit,
                                                        help: "the most monitors besides the campus one")
    public static let confirmWindowOption = Option.seconds("confirm-window-seconds", default: engineDefaults.confirmWindow,
                                                           help: "a fix confirms where a code was acquired only this close in time to it")
    public static let fixRetentionOption = Option.seconds("fix-retention-seconds", default: engineDefaults.fixRetention,
                                                          help: "fixes are kept this long, then deleted")
    public static let shardsOption = Option.count("shards", 1...256, default: 1, help: "number of device shards, as beacon-ingest publishes them")
    /// `--shard`: checked against `--shards` when read, so it is text here.
    public static let shardOption = Option<String>("shard", .string, default: "",
                                                   help: "the shard this instance owns, 0…shards-1: it consumes only that shard's topics (empty: every shard)")

    /// Every option region-monitor reads, in `--help` order. The kinds check every range.
    public static var specs: [OptionSpec] {
        common.specs + [campusOption.spec, fixListenOption.spec, exitOption.spec, hysteresisOption.spec, dwellOption.spec, nearestFreshnessOption.spec,
                        nearestMarginOption.spec, nearestReadingsOption.spec, nearestAloneOption.spec, nearestMovedOption.spec, tickOption.spec, sightingSaveOption.spec, conditionLimitOption.spec, monitorLimitOption.spec, confirmWindowOption.spec,
                        fixRetentionOption.spec, shardsOption.spec, shardOption.spec]
    }

    /// Reads the settings from configuration read with `specs` (whose kinds have checked every
    /// range), refusing a `--shard` that is not one of `--shards`.
    public init(_ config: Configuration) throws(RegionSettingsError) {
        let shards = config[Self.shardsOption]
        let shard = config[Self.shardOption]
        if !shard.isEmpty, Int(shard).map({ !(0..<shards).contains($0) }) ?? true {
            throw RegionSettingsError("--shard must be empty or 0…\(shards - 1), not \"\(shard.prefix(64))\"")
        }
        campus = config[Self.campusOption]
        fixListen = config[Self.fixListenOption]
        tickSeconds = config[Self.tickOption]
        self.shards = shards
        self.shard = shard
        engine.exitTimeout = config[Self.exitOption]
        engine.hysteresis = config[Self.hysteresisOption]
        engine.dwell = config[Self.dwellOption]
        engine.nearestFreshness = config[Self.nearestFreshnessOption]
        engine.nearestMargin = config[Self.nearestMarginOption]
        engine.nearestReadings = config[Self.nearestReadingsOption]
        engine.nearestAloneReadings = config[Self.nearestAloneOption]
        engine.nearestMovedMargin = config[Self.nearestMovedOption]
        engine.sightingSaveInterval = config[Self.sightingSaveOption]
        engine.confirmWindow = config[Self.confirmWindowOption]
        engine.fixRetention = config[Self.fixRetentionOption]
        engine.conditionLimit = config[Self.conditionLimitOption]
        engine.monitorLimit = config[Self.monitorLimitOption]
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
