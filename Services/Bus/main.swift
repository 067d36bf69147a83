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

let config = loadConfiguration(program: "bus", summary: "the Campus Café message bus (XSUB/XPUB proxy)", specs: BusOptions.specs)
let logger = Logger(service: "bus", instance: config[BusOptions.instance], minimum: Logger.Level(name: config[CommonOptions.logLevel]) ?? .info)

do {
    try BusProxy(config: config, logger: logger).run()
} catch {
    logger.error("bus failed", ["error": "\(error)"])
    exit(1)
}
