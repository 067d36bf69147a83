import Foundation
import Messages
import Policy
import ServiceRuntime
import ZeroMQ

// bus: the stateless XSUB/XPUB proxy every publisher and subscriber meets at.
// Publishers connect to the XSUB side, subscribers to the XPUB side; subscriptions flow upstream
// so publishers filter at the source. A REP socket answers `health`; an optional PUB socket
// copies every message for capture. In deployed mode it forwards only what the publishing key may
// publish and applies only the subscriptions the subscribing key may hold (Messages' BusAccess).

let specs: [OptionSpec] = [
    OptionSpec("xsub", .endpoint, default: "tcp://127.0.0.1:7401", help: "where publishers connect (bound XSUB)"),
    OptionSpec("xpub", .endpoint, default: "tcp://127.0.0.1:7402", help: "where subscribers connect (bound XPUB)"),
    OptionSpec("listen", .endpoint, default: "tcp://127.0.0.1:7403", help: "where the bus answers health requests"),
    OptionSpec("capture", .string, default: "", help: "optional endpoint to bind a PUB socket that copies every message (empty: off)"),
    OptionSpec("instance", .string, default: "bus", help: "instance name in logs and health"),
    OptionSpec("log-level", .choice(["debug", "info", "warning", "error"]), default: "info", help: "the least important log level written to stderr"),
    // libzmq takes the mark as a C int: a larger one is refused at start, not trapped on.
    OptionSpec("hwm", .count(0...Int(Int32.max)), default: "200000", help: "high-water mark of each side, in messages"),
    // The same bound and default as every service's: a publication the consumers would refuse as
    // too large still reaches them to be dead-lettered with the reason, up to twice the bound;
    // beyond that libzmq drops the sender before the bus holds the frame.
    OptionSpec.count("max-message-bytes", 1_024...64 * 1_024 * 1_024, default: Wire.defaultMaxFrameBytes,
                     help: "publications larger than twice this are refused by the transport (set it as the services' --max-message-bytes)"),
] + SocketSecurity.specs
let config = loadConfiguration(program: "bus", summary: "the Campus Café message bus (XSUB/XPUB proxy)", specs: specs)
let logger = Logger(service: "bus", instance: config.string("instance"), minimum: Logger.Level(name: config.string("log-level")) ?? .info)

do {
    try BusProxy(config: config, logger: logger).run()
} catch {
    logger.error("bus failed", ["error": "\(error)"])
    exit(1)
}
