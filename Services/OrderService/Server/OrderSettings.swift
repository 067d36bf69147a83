import Foundation
import ServiceRuntime

/// order-service's own options, each declared once below with its default, range and help; a
/// property starts from its option's default. `init(_:)` reads a loaded configuration into it.
public struct OrderSettings: Sendable, Equatable {
    /// The executable's name: its log lines, its `--help` and its SQLite file.
    public static let program = "order-service"
    /// The one line `--help` starts with.
    public static let summary = "cafés, menus, pickup windows and orders"
    /// The default request port (`--listen`).
    public static let listenPort = 7430

    /// The campus catalog file.
    public var campus = Self.campusOption.defaultValue
    /// How long a reserved pickup place is held for an order.
    public var reservationHoldSeconds = Self.reservationHoldOption.defaultValue
    /// region-monitor's request sockets, one per device shard, in shard order; each may be
    /// `name@tcp://…`, the instance whose key a deployed-mode socket expects.
    public var regionEndpoints = Self.regionEndpointsOption.defaultValue
    /// How long an App Clip order or a menu waits for region-monitor.
    public var regionTimeoutMilliseconds = Self.regionTimeoutOption.defaultValue
    /// After region-monitor did not answer, how long it is not asked again.
    public var regionRetrySeconds = Self.regionRetryOption.defaultValue

    /// Finished orders (picked up, cancelled, no-show) are deleted with their audit rows this many days after they ended; 0 keeps them.
    public var orderRetentionDays = Self.orderRetentionOption.defaultValue

    /// The defaults.
    public init() {}

    /// The options every service reads, with order-service's name and request port.
    public static let common = CommonOptions(service: program, listenPort: listenPort)
    public static let campusOption = Option<String>("campus", .path, default: "deploy/campus.json",
                                                    help: "the campus catalog (cafés, hours, pickup windows, menus)")
    public static let reservationHoldOption = Option.seconds("reservation-hold-seconds", default: 600,
                                                             help: "how long a reserved pickup place is held for an order")
    public static let regionEndpointsOption = Option.endpoints("region-endpoints", default: ["tcp://127.0.0.1:7420"],
                                                               help: "region-monitor's request sockets, comma-separated, one per device shard in shard order (nearest cafés for the menu, App Clip location confirmation); deployed mode: name@tcp://host:port names the instance whose key the socket expects (default region-monitor)")
    public static let regionTimeoutOption = Option.count("region-timeout-ms", 1...60_000, default: 1000,
                                                         help: "how long an App Clip order or a menu waits for region-monitor")
    public static let regionRetryOption = Option.seconds("region-retry-seconds", .nonNegative, default: 5,
                                                         help: "after region-monitor did not answer, how long App Clip orders and menus skip asking it (refused at once / next menu rule)")

    public static let orderRetentionOption = Option.count("order-retention-days", 0...3_650, default: 180,
                                                          help: "finished orders (picked up, cancelled, no-show) are deleted with their audit rows this many days after they ended (0: kept)")

    /// Every option order-service reads: the common ones, then its own. The kinds check every range.
    public static var specs: [OptionSpec] {
        common.specs + [campusOption.spec, reservationHoldOption.spec, regionEndpointsOption.spec, regionTimeoutOption.spec, regionRetryOption.spec, orderRetentionOption.spec]
    }

    /// The settings in `config` (loaded against `specs`, whose kinds checked every value).
    public init(_ config: Configuration) {
        campus = config[Self.campusOption]
        reservationHoldSeconds = config[Self.reservationHoldOption]
        regionEndpoints = config[Self.regionEndpointsOption]
        regionTimeoutMilliseconds = config[Self.regionTimeoutOption]
        regionRetrySeconds = config[Self.regionRetryOption]
        orderRetentionDays = config[Self.orderRetentionOption]
    }
}
