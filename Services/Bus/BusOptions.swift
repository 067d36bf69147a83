import Messages
import ServiceRuntime

/// The bus's options, each declared once with its default, range and help. The bus is no
/// service (no database, no outbox), so it has its own set rather than `CommonOptions`.
enum BusOptions {
    static let xsub = Option<String>("xsub", .endpoint, default: "tcp://127.0.0.1:7401", help: "where publishers connect (bound XSUB)")
    static let xpub = Option<String>("xpub", .endpoint, default: "tcp://127.0.0.1:7402", help: "where subscribers connect (bound XPUB)")
    static let listen = Option<String>("listen", .endpoint, default: "tcp://127.0.0.1:7403", help: "where the bus answers health requests")
    static let capture = Option<String>("capture", .string, default: "", help: "optional endpoint to bind a PUB socket that copies every message (empty: off)")
    static let instance = Option<String>("instance", .string, default: "bus", help: "instance name in logs and health")
    // libzmq takes the mark as a C int: a larger one is refused at start, not trapped on.
    static let hwm = Option.count("hwm", 0...Int(Int32.max), default: 200_000, help: "high-water mark of each side, in messages")
    // The same bound and default as every service's: a publication the consumers would refuse as
    // too large still reaches them to be dead-lettered with the reason, up to twice the bound;
    // beyond that libzmq drops the sender before the bus holds the frame.
    static let maxMessageBytes = Option.count("max-message-bytes", 1_024...64 * 1_024 * 1_024, default: Wire.defaultMaxFrameBytes,
                                              help: "publications larger than twice this are refused by the transport (set it as the services' --max-message-bytes)")

    /// Every option, in `--help` order: the bus's own, then the security options.
    static var specs: [OptionSpec] {
        [xsub.spec, xpub.spec, listen.spec, capture.spec, instance.spec, CommonOptions.logLevel.spec, hwm.spec, maxMessageBytes.spec] + SocketSecurity.specs
    }
}
