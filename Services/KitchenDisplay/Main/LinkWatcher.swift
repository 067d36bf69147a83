import Foundation
import KitchenCore
import Messages
import ServiceRuntime

/// Feeds `LinkMonitor` from the heartbeats the host's subscription already receives: the
/// kitchen's own heartbeat coming back proves the bus link, order-service's proves that link,
/// and the consumer cursor says whether the queue has caught up with what order-service announced.
final class LinkWatcher {
    private let host: ServiceHost
    private let settings: KitchenSettings
    private var monitor: LinkMonitor
    private var orderSource: String?

    init(host: ServiceHost, settings: KitchenSettings) {
        self.host = host
        self.settings = settings
        monitor = LinkMonitor(startedAt: host.clock.now())
    }

    /// Call after `host.subscribe`: heartbeats arrive on that subscription.
    func start() {
        host.onHeartbeat { [unowned self] source, heartbeat in
            let now = host.clock.now()
            if source == host.outbox.source {
                monitor.ownHeartbeat(at: now)
            } else if heartbeat.service == "order-service" {
                orderSource = source
                monitor.orderHeartbeat(at: now, lastSeq: heartbeat.streams["order"] ?? 0)
            }
        }
    }

    /// The links now, as replies and the screen show them.
    func status() -> KitchenLink {
        let cursor = orderSource.map { host.consumerCursor(source: $0, stream: "order") } ?? 0
        return monitor.status(at: host.clock.now(), cursor: cursor, settings: settings)
    }
}
