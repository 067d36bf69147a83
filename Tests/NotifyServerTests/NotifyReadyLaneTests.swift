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
        let bus = try Socket(h.host.context, .xpub)
        defer { bus.close() }
        try bus.setSendHighWaterMark(0)
        try bus.setLinger(milliseconds: 0)
        try bus.bind(h.busSub)
        var subscribed: Set<String> = []
        while !subscribed.isSuperset(of: ["region.", "order."]), let frames = try bus.receiveMultipart(timeoutMilliseconds: 5_000) {
            if let first = frames.first, first.first == 1 { subscribed.insert(String(decoding: first.dropFirst(), as: UTF8.self)) }
        }
        try #require(subscribed.isSuperset(of: ["region.", "order."]), "subscriptions seen: \(subscribed)")

        let now = h.clock.now()
        let beacon = BeaconIdentity(uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", major: 1, minor: 1)
        for seq in 1...Self.backlog {
            let nearest = NearestBeacon(deviceId: "walker-\(seq % 5_000)", beacon: beacon, proximity: .near, date: now)
            let envelope = Envelope(type: .regionNearest, source: "region-monitor", stream: "region", seq: seq, time: now, body: .nearest(nearest))
            try bus.send(multipart: [Data("region.nearest.walker".utf8), Wire.encode(envelope)])
        }
        let order = h.order("ord-1", .ready)
        let ready = Envelope(type: .orderReady, source: "order-service", stream: "order", seq: 1, time: now,
                             body: .order(OrderEvent(order: order, previous: .preparing, reason: nil, at: now)))
        try bus.send(multipart: [Data("order.ready.caffe-macs".utf8), Wire.encode(ready)])

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
