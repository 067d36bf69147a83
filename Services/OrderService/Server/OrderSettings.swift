import Foundation
import ServiceRuntime

/// order-service's own options, each default declared once (as a property default) and shown by
/// `--help` from there. `init(_:)` reads a loaded configuration into it.
public struct OrderSettings: Sendable, Equatable {
    /// The executable's name: its log lines, its `--help` and its SQLite file.
    public static let program = "order-service"
    /// The one line `--help` starts with.
    public static let summary = "cafés, menus, pickup windows and orders"
    /// The default request port (`--listen`).
    public static let listenPort = 7430

    /// The campus catalog file.
    public var campus = "deploy/campus.json"
    /// How long a reserved pickup place is held for an order.
    public var reservationHoldSeconds = 600.0
    /// region-monitor's request sockets, one per device shard, in shard order; each may be
    /// `name@tcp://…`, the instance whose key a deployed-mode socket expects.
    public var regionEndpoints = ["tcp://127.0.0.1:7420"]
    /// How long an App Clip order or a menu waits for region-monitor.
    public var regionTimeoutMilliseconds = 1000
    /// After region-monitor did not answer, how long it is not asked again.
    public var regionRetrySeconds = 5.0

    /// The defaults.
    public init() {}

    /// Every option order-service reads: the common ones, then its own. The kinds check every range.
    public static var specs: [OptionSpec] {
        let defaults = OrderSettings()
        return ServiceHost.commonSpecs(service: program, listenPort: listenPort) + [
            OptionSpec("campus", .path, default: defaults.campus, help: "the campus catalog (cafés, hours, pickup windows, menus)"),
            .seconds("reservation-hold-seconds", default: defaults.reservationHoldSeconds, help: "how long a reserved pickup place is held for an order"),
            OptionSpec("region-endpoints", .endpointList, default: defaults.regionEndpoints.joined(separator: ","),
                       help: "region-monitor's request sockets, comma-separated, one per device shard in shard order (nearest cafés for the menu, App Clip location confirmation); deployed mode: name@tcp://host:port names the instance whose key the socket expects (default region-monitor)"),
            .count("region-timeout-ms", 1...60_000, default: defaults.regionTimeoutMilliseconds, help: "how long an App Clip order or a menu waits for region-monitor"),
            .seconds("region-retry-seconds", .nonNegative, default: defaults.regionRetrySeconds,
                     help: "after region-monitor did not answer, how long App Clip orders and menus skip asking it (refused at once / next menu rule)"),
        ]
    }

    /// The settings in `config` (loaded against `specs`, whose kinds checked every value).
    public init(_ config: Configuration) {
        campus = config.string("campus")
        reservationHoldSeconds = config.double("reservation-hold-seconds")
        regionEndpoints = config.list("region-endpoints")
        regionTimeoutMilliseconds = config.int("region-timeout-ms")
        regionRetrySeconds = config.double("region-retry-seconds")
    }
}
