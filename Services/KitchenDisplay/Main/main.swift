import Foundation
import ServiceRuntime

// kitchen-display: tickets from order events, routed to stations; chefs start and bump them
// through the command socket (`cafectl kds ...`); bumps go back to order-service as kitchen events.

let specs = ServiceHost.commonSpecs(service: "kitchen-display", listenPort: 7440)
let config = loadConfiguration(program: "kitchen-display", summary: "the kitchen display: station tickets, start and bump", specs: specs)
do {
    let host = try ServiceHost(service: "kitchen-display", config: config)
    let service = KitchenService(host: host)
    try service.start()
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
} catch {
    FileHandle.standardError.write(Data("kitchen-display: \(error)\n".utf8))
    exit(1)
}
