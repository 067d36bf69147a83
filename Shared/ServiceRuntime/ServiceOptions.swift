import Messages

extension ServiceHost {
    /// The options every service reads, with this service's request port as the listen default.
    public static func commonSpecs(service: String, listenPort: Int) -> [OptionSpec] {
        [
            OptionSpec("listen", .endpoint, default: "tcp://127.0.0.1:\(listenPort)", help: "where this service answers requests (health, replay and its own ops)"),
            OptionSpec("advertise", .string, default: "", help: "the request endpoint other processes should dial (default: --listen, with * or 0.0.0.0 read as 127.0.0.1)"),
            OptionSpec("bus-pub", .endpoint, default: "tcp://127.0.0.1:7401", help: "the bus endpoint publishers connect to (its XSUB side)"),
            OptionSpec("bus-sub", .endpoint, default: "tcp://127.0.0.1:7402", help: "the bus endpoint subscribers connect to (its XPUB side)"),
            OptionSpec("data-dir", .path, default: "data", help: "folder for this service's SQLite file"),
            OptionSpec("instance", .token, default: service, help: "instance name: the envelope source and the SQLite file name"),
            OptionSpec("log-level", .choice(["debug", "info", "warning", "error"]), default: "info", help: "the least important log level written to stderr"),
            OptionSpec.count("max-database-mb", 0...1_000_000, default: 0,
                             help: "the most this service's SQLite file may grow to (0: no limit); beyond it writes fail as on a full disk, nothing is lost, and health says storage.full"),
            OptionSpec.count("stall-warning-ms", 1...60_000, default: 20,
                             help: "a socket handler or timer holding the event loop this long is logged as `reactor stalled` (lower it to find what makes a latency tail)"),
            OptionSpec.count("max-message-bytes", 1_024...64 * 1_024 * 1_024, default: Wire.defaultMaxFrameBytes, help: "frames larger than this are refused"),
        ] + SocketSecurity.specs
    }
}
