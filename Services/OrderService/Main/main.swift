import Campus
import Foundation
import OrderServer
import ServiceRuntime

// order-service: the campus catalog, default-location preferences, pickup windows and orders.
// Answers the client API; consumes region and kitchen events; publishes order events.

let config = loadConfiguration(program: OrderSettings.program, summary: OrderSettings.summary, specs: OrderSettings.specs)
let settings = OrderSettings(config)
// Start errors are JSON lines like every other log line (exit 1; a missing or unreadable campus catalog among them).
let startLog = Logger(service: OrderSettings.program, instance: config[OrderSettings.common.instance])
do {
    let host = try ServiceHost(options: OrderSettings.common, config: config)
    let source = try CatalogSource(path: settings.campus, now: host.clock.now())
    let region = try RegionClient(context: host.context, endpoints: settings.regionEndpoints, security: host.security,
                                  timeoutMilliseconds: Int32(settings.regionTimeoutMilliseconds), retrySeconds: settings.regionRetrySeconds, clock: host.clock)
    let service = OrderService(host: host, catalog: source.catalog, holdSeconds: settings.reservationHoldSeconds, region: region)
    try service.start()
    // SIGHUP and catalog.reload switch to the file's new catalog when it validates whole.
    source.onChange { service.use($0) }
    source.attach(to: host)
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
} catch {
    startLog.exitStart("start failed", error: error, status: 1)
}
