import Foundation
import ServiceRuntime

extension EdgeServer {
    /// The services in the order the page lists them (the bus first, the edge last).
    static let scrapedServices = ["beacon-ingest", "region-monitor", "order-service", "kitchen-display", "notification-service"]

    /// Starts the `/metrics` listener (none when `settings.listen` is empty): every scrape asks the
    /// bus, each service instance the edge forwards to, and the edge itself for `health`.
    public func startMetrics(host: ServiceHost, settings: EdgeMetricsSettings) throws {
        guard !settings.listen.isEmpty else { return }
        var targets: [MetricsCollector.Target] = []
        var ownLinks: [ServiceLink] = []
        func link(_ service: String, _ peer: String) throws -> ServiceLink {
            let link = try ServiceLink(context: host.context, service: service, peer: peer, security: host.security,
                                       maxMessageBytes: host.maxMessageBytes, logger: host.logger)
            reactor.onReadable(link.socket) { [unowned link] in try link.drain() }
            ownLinks.append(link)
            return link
        }
        if !settings.busHealthEndpoint.isEmpty {
            targets.append(.init(service: "bus", instance: MetricsCollector.instanceName(service: "bus", peer: settings.busHealthEndpoint, index: 0, count: 1),
                                 link: try link("bus", settings.busHealthEndpoint)))
        }
        for service in Self.scrapedServices {
            let peers = self.settings.serviceEndpoints[service] ?? []
            for (index, instance) in (links[service] ?? []).enumerated() where index < peers.count {
                targets.append(.init(service: service, instance: MetricsCollector.instanceName(service: service, peer: peers[index], index: index, count: peers.count),
                                     link: instance))
            }
        }
        let me = logger.instance
        targets.append(.init(service: EdgeSettings.program, instance: me, link: try link(EdgeSettings.program, "\(me)@\(requests.advertisedEndpoint)")))
        let collector = MetricsCollector(targets: targets, clock: clock, timeoutMilliseconds: settings.timeoutMilliseconds)
        let listener = try MetricsListener(context: host.context, listen: settings.listen, security: host.security, collector: collector, logger: logger)
        listener.attach(to: reactor)
        // The edge's deadline sweep knows only the links it forwards on; these are the scraper's.
        reactor.every(0.05, name: "metrics.deadlines") { [clock] in
            let now = clock.now()
            for link in ownLinks { link.expire(at: now) }
        }
        requests.addHealthDetails { listener.healthDetails }
        logger.info("metrics listening", ["metrics.listen": settings.listen, "metrics.targets": "\(targets.count)"])
    }
}
