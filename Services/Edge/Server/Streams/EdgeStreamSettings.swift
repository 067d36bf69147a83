import ServiceRuntime

/// The streams part's own options; the edge adds `specs` to its `--help` and reads them from
/// its configuration with `init(_:)`.
public struct EdgeStreamSettings: Sendable, Equatable {
    /// Pushpin's `push_in_spec`, which Pushpin binds and the edge's PUSH socket connects to.
    public var publishEndpoint = Self.publishEndpointOption.defaultValue
    /// How long an event stays in the journal a reconnecting client resumes from.
    public var historyHours = Self.historyHoursOption.defaultValue
    /// How long a held stream may be idle before Pushpin writes a keep-alive comment.
    public var keepAliveSeconds = Self.keepAliveOption.defaultValue
    /// The bus's request socket, whose health the status page shows beside the services'.
    public var busEndpoint = Self.busEndpointOption.defaultValue

    /// The defaults.
    public init() {}

    public static let publishEndpointOption = Option<String>("publish-endpoint", .endpoint, default: "tcp://127.0.0.1:7462",
                                                             help: "Pushpin's push_in_spec: where each order and device event is published to the clients held on its channel")
    public static let historyHoursOption = Option.count("stream-history-hours", 1...168, default: 24,
                                                        help: "how long an event is kept for a client that reconnects with Last-Event-ID (1…168)")
    public static let keepAliveOption = Option.count("stream-keep-alive-seconds", 5...300, default: 20,
                                                     help: "an SSE stream idle this long gets a comment from Pushpin, so proxies and NATs keep it open (5…300)")

    public static let busEndpointOption = Option<String>("bus-endpoint", .endpoint, default: "tcp://127.0.0.1:7403",
                                                         help: "the bus's request socket: the status page shows its health beside the services'")

    /// Every option of the streams part.
    public static var specs: [OptionSpec] { [publishEndpointOption.spec, historyHoursOption.spec, keepAliveOption.spec, busEndpointOption.spec] }

    /// The settings in `config` (loaded against `specs`, which checked every range).
    public init(_ config: Configuration) {
        publishEndpoint = config[Self.publishEndpointOption]
        historyHours = config[Self.historyHoursOption]
        keepAliveSeconds = config[Self.keepAliveOption]
        busEndpoint = config[Self.busEndpointOption]
    }
}
