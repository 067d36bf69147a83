import Foundation
import Messages
@testable import OrderServer
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// The kitchen's ready is not queued behind location events: order-service takes `kitchen.` on
/// its own consumer (its own SUB socket and group commit), so with a large backlog of region
/// events already on the bus the ready is applied in the first turns, long before the backlog
/// is through. Real sockets (in-process ZeroMQ, an XPUB standing in for the bus's), the real
/// reactor and SQLite file; the order is not asked how long anything took, only what was
/// applied first.
@Suite("Order service: the ready lane")
struct OrderServerReadyLaneTests {
    static let backlog: UInt64 = 20_000

    @Test("a kitchen.ready is applied while thousands of region events are still queued; all of them are applied after, once")
    func readyBeforeBacklog() throws {
        let h = try OrderHarness()
        let order = try h.kioskOrder(try h.reserve()).order
        // Both consumers' subscriptions reached the bus: nothing published from here is dropped.
        let bus = try StandInBus(context: h.host.context, endpoint: h.busSub, awaiting: ["region.", "kitchen."])
        defer { bus.close() }
        try #require(bus.subscribed.isSuperset(of: ["region.", "kitchen."]), "subscriptions seen: \(bus.subscribed)")

        let now = h.clock.now()
        try bus.publishNearestBacklog(Self.backlog, at: now)
        let ready = KitchenEvent(orderId: order.orderId, cafeId: order.cafeId, ticketId: nil, station: nil, at: now)
        let envelope = Envelope(type: .kitchenReady, source: "kitchen-display", stream: "kitchen", seq: 1, time: now, body: .kitchen(ready))
        try bus.publish(envelope, topic: "kitchen.ready.\(order.cafeId)")

        // The reactor runs here, on the test's thread; a probe after each turn notes how far the
        // region backlog was when the ready had been applied, and stops once all of it is.
        var regionCursorAtReady: UInt64?
        var finished = false
        let regionCursor = { h.host.bus.cursor(source: "region-monitor", stream: "region") }
        h.host.reactor.every(0.000_5, name: "test.probe") {
            if regionCursorAtReady == nil, try h.service.store.order(order.orderId)?.state == .ready { regionCursorAtReady = regionCursor() }
            if regionCursorAtReady != nil, regionCursor() == Self.backlog { finished = true; h.host.shutdown.request() }
        }
        // Only so a broken build cannot hang the suite: the assertions below say what failed.
        h.host.reactor.every(120, name: "test.deadline") { h.host.shutdown.request() }
        h.host.reactor.run()

        #expect(finished, "region cursor \(regionCursor()), ready seen at \(String(describing: regionCursorAtReady))")
        let atReady = try #require(regionCursorAtReady)
        #expect(atReady < Self.backlog / 2, "the ready waited for \(atReady) of \(Self.backlog) region events queued before it")
        #expect(h.host.bus.cursor(source: "kitchen-display", stream: "kitchen") == 1)
        #expect(try h.count("SELECT COUNT(*) AS n FROM device_nearest") == 5_000, "every walker's nearest beacon, once")
        #expect(h.host.bus.consumers.count == 2)
        let health = h.host.bus.healthDetails
        #expect(health["cursor.region-monitor/region"] == "\(Self.backlog)")
        #expect(health["cursor.kitchen-display/kitchen"] == "1")
        #expect(health["events.applied"] == "\(Self.backlog + 1)", "both consumers' counts, summed")
    }
}
