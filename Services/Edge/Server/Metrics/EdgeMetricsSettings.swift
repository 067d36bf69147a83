import ServiceRuntime

/// The metrics part's own options; the edge adds `specs` to its `--help` and reads them with `init(_:)`.
public struct EdgeMetricsSettings: Sendable, Equatable {
    /// Where the plain-HTTP `/metrics` listener binds ("": none).
    public var listen = Self.listenOption.defaultValue
    /// The bus's health socket (the services' are the endpoints the edge forwards to).
    public var busHealthEndpoint = Self.busHealthOption.defaultValue
    /// How long a scrape waits for each process's health before showing it down.
    public var timeoutMilliseconds = Self.timeoutOption.defaultValue

    /// The defaults.
    public init() {}

    /// The port run-local.sh and the compose file give the listener (off unless asked for, so an
    /// edge started anywhere else, a test's among them, never takes a fixed port).
    public static let listenPort = 7464
    public static let listenOption = Option<String>("metrics-listen", .string, default: "",
                                                    help: "where GET /metrics answers in Prometheus's text format for every process, e.g. tcp://127.0.0.1:7464 (plain HTTP, no session: bind it where only the scraper reaches; plain mode binds loopback only); empty: no listener")
    public static let busHealthOption = Option<String>("bus-health-endpoint", .endpoint, default: "tcp://127.0.0.1:7403",
                                                       help: "the bus's health socket, asked on every scrape and by the status page; deployed mode: name@tcp://host:port (default bus); empty: neither asks the bus")
    public static let timeoutOption = Option.count("metrics-timeout-ms", 100...30_000, default: 2_000,
                                                   help: "how long a scrape waits for each process's health; one that does not answer in time shows cafe_up 0")

    /// Every option of the metrics part.
    public static var specs: [OptionSpec] { [listenOption.spec, busHealthOption.spec, timeoutOption.spec] }

    /// The settings in `config` (loaded against `specs`, which checked every range).
    public init(_ config: Configuration) {
        listen = config[Self.listenOption]
        busHealthEndpoint = config[Self.busHealthOption]
        timeoutMilliseconds = config[Self.timeoutOption]
    }
}
