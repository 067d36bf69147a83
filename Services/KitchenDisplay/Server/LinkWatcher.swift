import Foundation
import KitchenCore
import Messages
import ServiceRuntime

/// Feeds `LinkMonitor` from what the host's subscription already receives: anything arriving
/// proves the bus link (the kitchen's own heartbeat comes back every second), order-service's
/// heartbeats and order events prove that link, and the consumer cursor says whether the queue
/// has caught up with what order-service announced.
final class LinkWatcher {
    private let clock: any WallClock
    private let bus: BusSubscription
    private let settings: KitchenSettings
    private var monitor: LinkMonitor
    private var orderSource: String?

    init(clock: any WallClock, bus: BusSubscription, settings: KitchenSettings) {
        self.clock = clock
        self.bus = bus
        self.settings = settings
        monitor = LinkMonitor(startedAt: clock.now())
    }

    /// Call after `bus.subscribe`: the bus's messages arrive on that subscription.
    func start() {
        bus.onMessage { [unowned self] envelope in
            let now = clock.now()
            monitor.busTraffic(at: now)
            switch envelope.body {
            case .heartbeat(let heartbeat) where heartbeat.service == "order-service":
                orderSource = envelope.source
                monitor.orderHeartbeat(at: now, lastSeq: heartbeat.streams["order"] ?? 0)
            case .order where envelope.stream == "order":
                orderSource = envelope.source
                monitor.orderEvent(at: now, seq: envelope.seq)
            default:
                break
            }
        }
    }

    /// The links now, as replies and the screen show them.
    func status() -> KitchenLink {
        let cursor = orderSource.map { bus.cursor(source: $0, stream: "order") } ?? 0
        return monitor.status(at: clock.now(), cursor: cursor, settings: settings)
    }
}
