import OrderServer
import ServiceRuntime

// order-service: the campus catalog, default-location preferences, pickup windows and orders.
// Answers the client API; consumes region and kitchen events; publishes order events. A missing
// or unreadable campus catalog is a start error (exit 1).

ServiceLaunch(OrderSettings.common, summary: OrderSettings.summary, specs: OrderSettings.specs, settings: OrderSettings.init).run { host, settings in
    let source = try CatalogSource(path: settings.campus, now: host.clock.now())
    let region = try RegionClient(context: host.context, endpoints: settings.regionEndpoints, security: host.security,
                                  timeoutMilliseconds: Int32(settings.regionTimeoutMilliseconds), retrySeconds: settings.regionRetrySeconds, clock: host.clock)
    let service = OrderService(host: host, catalog: source.catalog, holdSeconds: settings.reservationHoldSeconds, region: region)
    try service.start()
    service.addRetention(to: host.pruner, orderRetentionDays: settings.orderRetentionDays)
    // SIGHUP and catalog.reload switch to the file's new catalog when it validates whole.
    source.onChange { service.use($0) }
    source.attach(to: host)
    return service
}
