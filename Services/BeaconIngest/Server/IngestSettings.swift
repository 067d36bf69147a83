import Foundation
import ServiceRuntime

/// beacon-ingest's own settings. Each default is declared once, here, as a property default; the
/// options (`specs`) show them in `--help`, and `init(config:)` reads and checks them.
public struct IngestSettings: Sendable, Equatable {
    /// Device shards in sighting/location/device topics (the same on every instance).
    public var shards = 1
    /// The one shard this instance serves, or nil for every shard.
    public var ownedShard: Int? = nil
    /// region-monitor's fix endpoints: one for every shard, or one per shard in shard order.
    public var fixEndpoints = ["tcp://127.0.0.1:7425"]
    /// How long a raw RSSI reading counts in its beacon's average.
    public var smoothingWindowSeconds = 10.0

    /// Every setting at its default.
    public init() {}

    /// Why the options cannot run the service: the `error` of one JSON line on stderr, then exit 2.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Every option beacon-ingest reads: the common ones, then its own.
    public static var specs: [OptionSpec] {
        let defaults = IngestSettings()
        return ServiceHost.commonSpecs(service: "beacon-ingest", listenPort: 7410) + [
            OptionSpec.count("shards", 1...256, default: defaults.shards, help: "number of device shards in sighting/location/device topics (the same on every instance)"),
            OptionSpec("fix-endpoints", .endpointList, default: defaults.fixEndpoints.joined(separator: ","),
                       help: "region-monitor's fix endpoints, comma-separated: one for every shard, or one per shard in shard order (fixes go straight there, never over the bus); deployed mode: name@tcp://… names the server's key (default region-monitor)"),
            OptionSpec("shard", .string, default: defaults.ownedShard.map(String.init) ?? "",
                       help: "the shard this instance owns, 0…shards-1; devices of other shards are refused with ingest.wrongShard (empty: every shard)"),
            OptionSpec.seconds("smoothing-window-seconds", default: defaults.smoothingWindowSeconds,
                       help: "how long a raw RSSI reading counts in its beacon's average (0.5 for a walk replayed at 20× speed)"),
        ]
    }

    /// Reads the options of `specs` (their kinds checked every range already); throws `Invalid`
    /// with the line to print for what relates two options: a `--shard` outside 0…shards-1, or a
    /// fix endpoint count that is neither one nor one per shard.
    public init(config: Configuration) throws(Invalid) {
        smoothingWindowSeconds = config.double("smoothing-window-seconds")
        shards = config.int("shards")
        let owned = config.string("shard")
        guard owned.isEmpty || (Int(owned).map { (0..<shards).contains($0) } ?? false) else {
            throw Invalid(description: "beacon-ingest: --shard must be empty or 0…\(shards - 1), not \"\(owned)\"")
        }
        ownedShard = Int(owned)
        fixEndpoints = config.list("fix-endpoints")
        guard fixEndpoints.count == 1 || fixEndpoints.count == shards else {
            throw Invalid(description: "beacon-ingest: --fix-endpoints must name one endpoint, or one per shard (\(shards)), not \(fixEndpoints.count)")
        }
    }
}
