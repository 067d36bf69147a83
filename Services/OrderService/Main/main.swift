import Campus
import Foundation
import OrderServer
import ServiceRuntime

// order-service: the campus catalog, default-location preferences, pickup windows and orders.
// Answers the client API; consumes region and kitchen events; publishes order events.

let specs = ServiceHost.commonSpecs(service: "order-service", listenPort: 7430) + [
    OptionSpec("campus", .path, default: "deploy/campus.json", help: "the campus catalog (cafés, hours, pickup windows, menus)"),
    OptionSpec("reservation-hold-seconds", .number, default: "600", help: "how long a reserved pickup place is held for an order"),
    OptionSpec("region-endpoints", .string, default: "tcp://127.0.0.1:7420",
               help: "region-monitor's request sockets, comma-separated, one per device shard in shard order (nearest cafés for the menu, App Clip location confirmation)"),
    OptionSpec("region-timeout-ms", .integer, default: "1000", help: "how long an App Clip order or a menu waits for region-monitor"),
    OptionSpec("region-retry-seconds", .number, default: "5",
               help: "after region-monitor did not answer, how long App Clip orders and menus skip asking it (refused at once / next menu rule)"),
]
let config = loadConfiguration(program: "order-service", summary: "cafés, menus, pickup windows and orders", specs: specs)
let regionEndpoints = config.string("region-endpoints").split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
if regionEndpoints.isEmpty || !regionEndpoints.allSatisfy({ ["tcp://", "ipc://", "inproc://"].contains(where: $0.hasPrefix) }) {
    FileHandle.standardError.write(Data("order-service: --region-endpoints must be ZeroMQ endpoints separated by commas, not \"\(config.string("region-endpoints"))\"\n".utf8))
    exit(2)
}
do {
    let catalog = try CampusCatalog.load(path: config.string("campus"))
    let host = try ServiceHost(service: "order-service", config: config)
    let region = RegionClient(context: host.context, endpoints: regionEndpoints, timeoutMilliseconds: Int32(config.int("region-timeout-ms")),
                              retrySeconds: config.double("region-retry-seconds"), clock: host.clock)
    let service = OrderService(host: host, catalog: catalog, holdSeconds: config.double("reservation-hold-seconds"), region: region)
    try service.start()
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
} catch {
    FileHandle.standardError.write(Data("order-service: \(error)\n".utf8))
    exit(1)
}
