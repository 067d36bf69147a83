import ServiceRuntime

/// The edge's own options, each declared once below with its default, range and help; a property
/// starts from its option's default. `init(_:)` reads a loaded configuration into it.
public struct EdgeSettings: Sendable, Equatable {
    /// The executable's name: its log lines, its `--help` and its SQLite file (the sessions).
    public static let program = "edge"
    /// The one line `--help` starts with.
    public static let summary = "the HTTP edge: REST /v1 behind Pushpin (zmq-http), bearer sessions, ops forwarded on behalf of the session"
    /// The default request port (`--listen`: health and the token ops).
    public static let listenPort = 7460

    /// Pushpin's `zhttpreq` route endpoint, which Pushpin binds and the edge's ROUTER connects to.
    public var zhttpEndpoint = Self.zhttpOption.defaultValue
    /// beacon-ingest's request sockets, one per device shard, in shard order.
    public var ingestEndpoints = Self.ingestOption.defaultValue
    /// region-monitor's request sockets, one per device shard, in shard order.
    public var regionEndpoints = Self.regionOption.defaultValue
    public var ordersEndpoint = Self.ordersOption.defaultValue
    public var kitchenEndpoint = Self.kitchenOption.defaultValue
    public var notifyEndpoint = Self.notifyOption.defaultValue
    /// How long a forwarded request may wait for its service before the client gets 504.
    public var deadlineMilliseconds = Self.deadlineOption.defaultValue
    /// The most forwarded requests waiting for services at once; beyond, 503.
    public var maxInFlight = Self.maxInFlightOption.defaultValue
    public var maxInFlightPerInstance = Self.maxInFlightPerInstanceOption.defaultValue
    /// The OpenID Connect issuers file ("" : none, and sign-in answers 503).
    public var issuers = Self.issuersOption.defaultValue
    /// Pushpin's `sig_key` file ("": Grip-Sig not checked).
    public var gripKeyFile = Self.gripKeyOption.defaultValue
    /// Per bearer token: requests a second, and the burst.
    public var tokenRate = Self.tokenRateOption.defaultValue
    public var tokenBurst = Self.tokenBurstOption.defaultValue
    /// Per client address: requests a second, and the burst.
    public var addressRate = Self.addressRateOption.defaultValue
    public var addressBurst = Self.addressBurstOption.defaultValue
    /// The SSE streams' own settings (Streams/).
    public var streams = EdgeStreamSettings()
    /// The `/metrics` listener's settings (Metrics/).
    public var metrics = EdgeMetricsSettings()

    /// The defaults.
    public init() {}

    /// The options every service reads, with the edge's name and request port. The edge never
    /// publishes on the bus (PROTOCOL.md section 7), so it sends no heartbeats.
    public static let common = CommonOptions(service: program, listenPort: listenPort, publishes: false)
    public static let zhttpOption = Option<String>("zhttp-endpoint", .endpoint, default: "tcp://127.0.0.1:7461",
                                                   help: "Pushpin's zhttpreq route endpoint (Pushpin binds it, the edge connects a ROUTER); ipc:// or loopback tcp")
    public static let ingestOption = Option.endpoints("ingest-endpoints", default: ["tcp://127.0.0.1:7410"],
                                                      help: "beacon-ingest's request sockets, comma-separated, one per device shard in shard order; deployed mode: name@tcp://host:port names the instance whose key the socket expects (default beacon-ingest)")
    public static let regionOption = Option.endpoints("region-endpoints", default: ["tcp://127.0.0.1:7420"],
                                                      help: "region-monitor's request sockets, comma-separated, one per device shard in shard order; deployed mode: name@tcp://host:port (default region-monitor)")
    public static let ordersOption = Option<String>("orders-endpoint", .endpoint, default: "tcp://127.0.0.1:7430",
                                                    help: "order-service's request socket; deployed mode: name@tcp://host:port (default order-service)")
    public static let kitchenOption = Option<String>("kitchen-endpoint", .endpoint, default: "tcp://127.0.0.1:7440",
                                                     help: "kitchen-display's request socket; deployed mode: name@tcp://host:port (default kitchen-display)")
    public static let notifyOption = Option<String>("notify-endpoint", .endpoint, default: "tcp://127.0.0.1:7450",
                                                    help: "notification-service's request socket; deployed mode: name@tcp://host:port (default notification-service)")
    public static let deadlineOption = Option.count("deadline-ms", 50...60_000, default: 3_000,
                                                    help: "how long a forwarded request waits for its service before the client gets 504 (a service that is not connected answers 503 at once)")
    public static let maxInFlightOption = Option.count("max-in-flight", 1...100_000, default: 4_096,
                                                       help: "the most forwarded requests waiting for services at once; beyond it the client gets 503 at once")
    /// A service answers its requests one at a time, so what waits beyond what it can answer
    /// within the deadline only times out: at 200 new orders a second (order-service answers
    /// about 150 here) nearly every request waited its 3 s and got 504, the work done for none.
    /// 256 waiting at the slowest op's ~5 ms is about 1.3 s: an admitted request is answered, the
    /// rest are told at once to come back.
    public static let maxInFlightPerInstanceOption = Option.count("max-in-flight-per-instance", 1...100_000, default: 256,
                                                                  help: "the most forwarded requests waiting for one service instance; beyond it the client gets 503 with Retry-After at once, so an overloaded service answers what it can in time instead of every request timing out")
    public static let issuersOption = Option<String>("issuers", .string, default: "",
                                                     help: "the OpenID Connect issuers file (JSON: issuer, audiences, jwksFile, userId); empty: no sign-in (POST /v1/sessions answers 503)")
    public static let gripKeyOption = Option<String>("grip-key-file", .string, default: "",
                                                     help: "a file holding Pushpin's sig_key: requests without a valid Grip-Sig under it are refused (403); empty: not checked (the edge connects to an endpoint only Pushpin binds)")
    public static let tokenRateOption = Option.rate("token-rate", default: 10,
                                                    help: "requests a second one bearer token may make, on average (a phone polls little; a kitchen tablet bumps a ticket at a time)")
    public static let tokenBurstOption = Option.count("token-burst", 1...100_000, default: 60,
                                                      help: "requests one bearer token may make at once before --token-rate applies (an app's launch: registration, status, menu, windows, inbox)")
    public static let addressRateOption = Option.rate("address-rate", default: 100,
                                                      help: "requests a second one client address may make, on average: generous, since a campus network puts many phones behind one address")
    public static let addressBurstOption = Option.count("address-burst", 1...1_000_000, default: 600,
                                                        help: "requests one client address may make at once before --address-rate applies")

    /// Every option the edge reads: the common ones, then its own.
    public static var specs: [OptionSpec] {
        common.specs + [zhttpOption.spec, ingestOption.spec, regionOption.spec, ordersOption.spec, kitchenOption.spec, notifyOption.spec,
                        deadlineOption.spec, maxInFlightOption.spec, maxInFlightPerInstanceOption.spec, issuersOption.spec, gripKeyOption.spec, tokenRateOption.spec, tokenBurstOption.spec,
                        addressRateOption.spec, addressBurstOption.spec] + EdgeStreamSettings.specs + EdgeMetricsSettings.specs
    }

    /// The settings in `config` (loaded against `specs`, which checked every range).
    public init(_ config: Configuration) {
        zhttpEndpoint = config[Self.zhttpOption]
        ingestEndpoints = config[Self.ingestOption]
        regionEndpoints = config[Self.regionOption]
        ordersEndpoint = config[Self.ordersOption]
        kitchenEndpoint = config[Self.kitchenOption]
        notifyEndpoint = config[Self.notifyOption]
        deadlineMilliseconds = config[Self.deadlineOption]
        maxInFlight = config[Self.maxInFlightOption]
        maxInFlightPerInstance = config[Self.maxInFlightPerInstanceOption]
        issuers = config[Self.issuersOption]
        gripKeyFile = config[Self.gripKeyOption]
        tokenRate = config[Self.tokenRateOption]
        tokenBurst = config[Self.tokenBurstOption]
        addressRate = config[Self.addressRateOption]
        addressBurst = config[Self.addressBurstOption]
        streams = EdgeStreamSettings(config)
        metrics = EdgeMetricsSettings(config)
    }

    /// The request endpoints of each service the edge forwards to, by the service's usual name.
    public var serviceEndpoints: [String: [String]] {
        ["beacon-ingest": ingestEndpoints, "region-monitor": regionEndpoints, "order-service": [ordersEndpoint],
         "kitchen-display": [kitchenEndpoint], "notification-service": [notifyEndpoint]]
    }

    /// The per-token limit.
    public var tokenLimit: RateLimit { RateLimit(perSecond: tokenRate, burst: Double(tokenBurst)) }
    /// The per-address limit.
    public var addressLimit: RateLimit { RateLimit(perSecond: addressRate, burst: Double(addressBurst)) }
}
