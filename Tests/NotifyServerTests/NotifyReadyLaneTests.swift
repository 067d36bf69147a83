import Foundation
import Messages
@testable import NotifyServer
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// An order's ready is not queued behind location events: notification-service takes `order.`
/// on its own consumer (its own SUB socket and group commit), so with a large backlog of region
/// events already on the bus the ready notification is made in the first turns, long before the
/// backlog is through. Real sockets (in-process ZeroMQ, an XPUB standing in for the bus's), the
/// real reactor and SQLite file; what is checked is what was applied first, never how long.
@Suite("Notification service: the ready lane")
struct NotifyReadyLaneTests {
    static let backlog: UInt64 = 20_000

    @Test("an order.ready is notified while thousands of region events are still queued; all of them are applied after")
    func readyBeforeBacklog() throws {
        let h = try NotifyHarness()
        try h.register("phone-1")
        // Both consumers' subscriptions reached the bus: nothing published from here is dropped.
        let bus = try StandInBus(context: h.host.context, endpoint: h.busSub, awaiting: ["region.", "order."])
        defer { bus.close() }
        try #require(bus.subscribed.isSuperset(of: ["region.", "order."]), "subscriptions seen: \(bus.subscribed)")

        let now = h.clock.now()
        try bus.publishNearestBacklog(Self.backlog, at: now)
        let order = h.order("ord-1", .ready)
        let ready = Envelope(type: .orderReady, source: "order-service", stream: "order", seq: 1, time: now,
                             body: .order(OrderEvent(order: order, previous: .preparing, reason: nil, at: now)))
        try bus.publish(ready, topic: "order.ready.caffe-macs")

        var regionCursorAtReady: UInt64?
        var finished = false
        let regionCursor = { h.host.bus.cursor(source: "region-monitor", stream: "region") }
        h.host.reactor.every(0.000_5, name: "test.probe") {
            if regionCursorAtReady == nil, try h.count("SELECT COUNT(*) AS n FROM notifications WHERE once_key = 'ord-1'") > 0 { regionCursorAtReady = regionCursor() }
            if regionCursorAtReady != nil, regionCursor() == Self.backlog { finished = true; h.host.shutdown.request() }
        }
        // Only so a broken build cannot hang the suite: the assertions below say what failed.
        h.host.reactor.every(120, name: "test.deadline") { h.host.shutdown.request() }
        h.host.reactor.run()

        #expect(finished, "region cursor \(regionCursor()), ready seen at \(String(describing: regionCursorAtReady))")
        let atReady = try #require(regionCursorAtReady)
        #expect(atReady < Self.backlog / 2, "the ready waited for \(atReady) of \(Self.backlog) region events queued before it")
        #expect(h.host.bus.cursor(source: "order-service", stream: "order") == 1)
        #expect(try h.inbox().count == 1, "one ready notification")
    }
}
