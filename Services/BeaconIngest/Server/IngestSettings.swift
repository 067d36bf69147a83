import Foundation
import Messages
import ServiceRuntime

/// beacon-ingest's own settings. Each option is declared once, below, with its default, range and
/// help; a property starts from its option's default, `specs` lists them for `--help`, and
/// `init(config:)` reads and checks them.
public struct IngestSettings: Sendable, Equatable {
    /// Device shards in sighting/location/device topics (the same on every instance).
    public var shards = Self.shardsOption.defaultValue
    /// The one shard this instance serves, or nil for every shard.
    public var ownedShard: Int? = nil
    /// region-monitor's fix endpoints: one for every shard, or one per shard in shard order.
    public var fixEndpoints = Self.fixEndpointsOption.defaultValue
    /// How long a raw RSSI reading counts in its beacon's average.
    public var smoothingWindowSeconds = Self.smoothingWindowOption.defaultValue
    public var evidenceWindowSeconds = Self.evidenceWindowOption.defaultValue
    /// The most encoded bytes of one `sighting.batch` message: its consumers' `--max-message-bytes`.
    public var sightingBatchBytes = Self.sightingBatchBytesOption.defaultValue
    /// How `sighting.batch` messages are written: the compact frame, or JSON for tools that read raw frames.
    public var sightingEncoding = Self.sightingEncodingOption.defaultValue

    /// Every setting at its default.
    public init() {}

    /// Why the options cannot run the service: the `error` of one JSON line on stderr, then exit 2.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The options every service reads, with beacon-ingest's name and request port.
    public static let common = CommonOptions(service: "beacon-ingest", listenPort: 7410)
    public static let shardsOption = Option.count("shards", 1...256, default: 1,
                                                  help: "number of device shards in sighting/location/device topics (the same on every instance)")
    public static let fixEndpointsOption = Option.endpoints("fix-endpoints", default: ["tcp://127.0.0.1:7425"],
                                                            help: "region-monitor's fix endpoints, comma-separated: one for every shard, or one per shard in shard order (fixes go straight there, never over the bus); deployed mode: name@tcp://… names the server's key (default region-monitor)")
    /// `--shard`: checked against `--shards` when read, so it is text here.
    public static let shardOption = Option<String>("shard", .string, default: "",
                                                   help: "the shard this instance owns, 0…shards-1; devices of other shards are refused with ingest.wrongShard (empty: every shard)")
    public static let smoothingWindowOption = Option.seconds("smoothing-window-seconds", default: 10,
                                                             help: "how long a raw RSSI reading counts in its beacon's average (0.5 for a walk replayed at 20× speed)")
    public static let evidenceWindowOption = Option.seconds("evidence-seconds", default: 40,
                                                            help: "how long a reading counts in the mean RSSI a sighting carries as evidence for the nearest café (2 for a walk replayed at 20× speed)")
    public static let sightingBatchBytesOption = Option.count("sighting-batch-bytes", 1_024...64 * 1_024 * 1_024, default: Wire.defaultMaxFrameBytes,
                                                              help: "the most encoded bytes of one sighting.batch message, envelope included (a request's sightings go in several when they would be more): at most region-monitor's and the bus's --max-message-bytes, which refuse a larger message whole")
    public static let sightingEncodingOption = Option.choice("sighting-encoding", default: SightingEncoding.compact,
                                                             help: "how sighting.batch messages are written: compact (the hot-path frame every consumer and cafectl tail read as JSON) or json (for a tool that reads raw frames off the bus)")

    /// Every option beacon-ingest reads: the common ones, then its own.
    public static var specs: [OptionSpec] {
        common.specs + [shardsOption.spec, fixEndpointsOption.spec, shardOption.spec, smoothingWindowOption.spec, evidenceWindowOption.spec, sightingBatchBytesOption.spec,
                       sightingEncodingOption.spec]
    }

    /// Reads the options of `specs` (their kinds checked every range already); throws `Invalid`
    /// with the line to print for what relates two options: a `--shard` outside 0…shards-1, or a
    /// fix endpoint count that is neither one nor one per shard.
    public init(config: Configuration) throws(Invalid) {
        smoothingWindowSeconds = config[Self.smoothingWindowOption]
        evidenceWindowSeconds = config[Self.evidenceWindowOption]
        sightingBatchBytes = config[Self.sightingBatchBytesOption]
        sightingEncoding = config[Self.sightingEncodingOption]
        shards = config[Self.shardsOption]
        let owned = config[Self.shardOption]
        guard owned.isEmpty || (Int(owned).map { (0..<shards).contains($0) } ?? false) else {
            throw Invalid(description: "beacon-ingest: --shard must be empty or 0…\(shards - 1), not \"\(owned)\"")
        }
        ownedShard = Int(owned)
        fixEndpoints = config[Self.fixEndpointsOption]
        guard fixEndpoints.count == 1 || fixEndpoints.count == shards else {
            throw Invalid(description: "beacon-ingest: --fix-endpoints must name one endpoint, or one per shard (\(shards)), not \(fixEndpoints.count)")
        }
    }
}
