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
    /// The built-in monitor holding the campus conditions.
    public var monitor = "campus"
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

    /// Every option region-monitor reads, with its default and help.
    public static var specs: [OptionSpec] {
        let d = RegionMonitorSettings()
        return ServiceHost.commonSpecs(service: "region-monitor", listenPort: listenPort) + [
            OptionSpec("campus", .path, default: d.campus, help: "the campus catalog: per café a beacon condition <id> and an area condition <id>.area"),
            OptionSpec("monitor", .string, default: d.monitor, help: "the name of the built-in monitor holding the campus conditions"),
            OptionSpec("fix-listen", .endpoint, default: d.fixListen, help: "where beacon-ingest pushes location fixes (a direct channel: fixes never cross the bus)"),
            OptionSpec("beacon-exit-seconds", .number, default: text(d.engine.exitTimeout),
                       help: "a beacon condition becomes unsatisfied after this long without a matching sighting (unless it names its own)"),
            OptionSpec("hysteresis-meters", .number, default: text(d.engine.hysteresis),
                       help: "leaving a circle needs a fix this far beyond its radius, uncertainty included (unless it names its own)"),
            OptionSpec("dwell-seconds", .number, default: text(d.engine.dwell),
                       help: "a device must be inside a circle this long before it is satisfied (unless it names its own)"),
            OptionSpec("nearest-freshness-seconds", .number, default: text(d.engine.nearestFreshness), help: "how long a near/immediate sighting decides the nearest beacon"),
            OptionSpec("tick-seconds", .number, default: text(d.tickSeconds), help: "how often the timer fires exits and dwell times"),
            OptionSpec("condition-limit", .integer, default: "\(d.engine.conditionLimit)", help: "the most conditions one monitor may hold (monitor.conditionLimitExceeded beyond)"),
            OptionSpec("monitor-limit", .integer, default: "\(d.engine.monitorLimit)", help: "the most monitors besides the campus one"),
            OptionSpec("confirm-window-seconds", .number, default: text(d.engine.confirmWindow), help: "a fix confirms where a code was acquired only this close in time to it"),
            OptionSpec("fix-retention-seconds", .number, default: text(d.engine.fixRetention), help: "fixes are kept this long, then deleted"),
            OptionSpec("shards", .integer, default: "\(d.shards)", help: "number of device shards, as beacon-ingest publishes them"),
            OptionSpec("shard", .string, default: d.shard, help: "the shard this instance owns, 0…shards-1: it consumes only that shard's topics (empty: every shard)"),
        ]
    }

    /// Reads the settings from configuration read with `specs`, refusing what the option kinds
    /// let through but the service cannot use (checked in this order; the first refusal wins).
    public init(_ config: Configuration) throws(RegionSettingsError) {
        let shards = max(1, config.int("shards"))
        let shard = config.string("shard")
        if !shard.isEmpty, Int(shard).map({ !(0..<shards).contains($0) }) ?? true {
            throw RegionSettingsError("--shard must be empty or 0…\(shards - 1), not \"\(shard)\"")
        }
        for name in ["beacon-exit-seconds", "nearest-freshness-seconds", "tick-seconds", "confirm-window-seconds", "fix-retention-seconds"] where !(config.double(name) > 0) {
            throw RegionSettingsError("--\(name) must be more than 0")
        }
        for name in ["hysteresis-meters", "dwell-seconds"] where !(config.double(name) >= 0) {
            throw RegionSettingsError("--\(name) must be 0 or more")
        }
        for name in ["condition-limit", "monitor-limit"] where config.int(name) < 1 {
            throw RegionSettingsError("--\(name) must be 1 or more")
        }
        campus = config.string("campus")
        monitor = config.string("monitor")
        fixListen = config.string("fix-listen")
        tickSeconds = config.double("tick-seconds")
        self.shards = config.int("shards")
        self.shard = shard
        engine.exitTimeout = config.double("beacon-exit-seconds")
        engine.hysteresis = config.double("hysteresis-meters")
        engine.dwell = config.double("dwell-seconds")
        engine.nearestFreshness = config.double("nearest-freshness-seconds")
        engine.confirmWindow = config.double("confirm-window-seconds")
        engine.fixRetention = config.double("fix-retention-seconds")
        engine.conditionLimit = config.int("condition-limit")
        engine.monitorLimit = config.int("monitor-limit")
    }

    /// A default as `--help` shows it: whole numbers without a fraction ("30", not "30.0").
    private static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
    }
}

/// A setting the service cannot run with; main prints it on one line and exits 2.
public struct RegionSettingsError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the option.
    public let message: String
    /// One line, as `region-monitor: <message>`.
    public var description: String { message }

    init(_ message: String) {
        self.message = message
    }
}
