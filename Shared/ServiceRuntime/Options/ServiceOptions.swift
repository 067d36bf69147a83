import Messages

/// The options every service reads, each declared once. `listen` and `instance` default to the
/// service's own port and name, so a service makes its set with `CommonOptions(service:listenPort:)`;
/// the rest are the same for every service.
public struct CommonOptions: Sendable {
    /// The service these options are for: its log lines and its health reply name it.
    public let service: String
    /// Where this service answers requests (health, replay and its own ops).
    public let listen: Option<String>
    /// The instance name: the envelope source and the SQLite file name.
    public let instance: Option<String>
    /// Whether the process publishes on the bus (and so announces itself with heartbeats). The
    /// HTTP edge does not: its key may not publish, and a heartbeat would only be refused.
    public let publishes: Bool
    /// How long this service keeps what it only needs for a while (its replay window defaults to its own).
    public let retention: RetentionOptions

    public static let advertise = Option<String>("advertise", .string, default: "",
                                                 help: "the request endpoint other processes should dial (default: --listen, with * or 0.0.0.0 read as 127.0.0.1)")
    public static let busPub = Option<String>("bus-pub", .endpoint, default: "tcp://127.0.0.1:7401", help: "the bus endpoint publishers connect to (its XSUB side)")
    public static let busSub = Option<String>("bus-sub", .endpoint, default: "tcp://127.0.0.1:7402", help: "the bus endpoint subscribers connect to (its XPUB side)")
    public static let dataDir = Option<String>("data-dir", .path, default: "data", help: "folder for this service's SQLite file")
    public static let logLevel = Option<String>("log-level", .choice(["debug", "info", "warning", "error"]), default: "info",
                                                help: "the least important log level written to stderr")
    public static let maxDatabaseMB = Option.count("max-database-mb", 0...1_000_000, default: 0,
                                                   help: "the most this service's SQLite file may grow to (0: no limit); beyond it writes fail as on a full disk, nothing is lost, and health says storage.full")
    public static let stallWarningMilliseconds = Option.count("stall-warning-ms", 1...60_000, default: 20,
                                                              help: "a socket handler or timer holding the event loop this long is logged as `reactor stalled` (lower it to find what makes a latency tail)")
    public static let maxMessageBytes = Option.count("max-message-bytes", 1_024...64 * 1_024 * 1_024, default: Wire.defaultMaxFrameBytes,
                                                     help: "frames larger than this are refused")

    /// The common options of `service`, whose request port is `listenPort` unless `--listen` says
    /// otherwise; `publishes` false for a process that never publishes on the bus.
    public init(service: String, listenPort: Int, publishes: Bool = true, replayWindowSeconds: Int = 7 * 86_400) {
        self.service = service
        retention = RetentionOptions(replayWindowSeconds: replayWindowSeconds)
        self.publishes = publishes
        listen = Option("listen", .endpoint, default: "tcp://127.0.0.1:\(listenPort)", help: "where this service answers requests (health, replay and its own ops)")
        instance = Option("instance", .token, default: service, help: "instance name: the envelope source and the SQLite file name")
    }

    /// Every common option, in `--help` order, the security options last.
    public var specs: [OptionSpec] {
        [listen.spec, Self.advertise.spec, Self.busPub.spec, Self.busSub.spec, Self.dataDir.spec, instance.spec, Self.logLevel.spec,
         Self.maxDatabaseMB.spec, Self.stallWarningMilliseconds.spec, Self.maxMessageBytes.spec] + retention.specs + SocketSecurity.specs
    }
}
