import Foundation
import KitchenCore
@testable import KitchenServer
import Messages
import Testing
import TestSupport

/// A chef (or a client as quick) bumps a ticket whose `order.placed` has reached kitchen-display's
/// bus socket but not yet its turn: the kitchen applies what waits there before it looks the
/// ticket up, instead of refusing it as unknown and being asked again after `kitchen.paced`. Real
/// sockets (in-process ZeroMQ, an XPUB standing in for the bus's) and SQLite; no reactor turn runs,
/// so only the bump itself can apply the order.
@Suite("Kitchen: a bump that comes with its order", .serialized)
struct KitchenQueuedOrderTests {
    @Test("the order waiting on the socket is applied, once, and the bump succeeds; a ticket nobody ordered is still refused")
    func bumpAppliesQueuedOrder() throws {
        let h = try KitchenHarness()
        let bus = try StandInBus(context: h.host.context, endpoint: h.busSub, awaiting: ["order."])
        defer { bus.close() }
        try #require(bus.subscribed.contains("order."), "subscriptions seen: \(bus.subscribed)")
        #expect(errorCode { try h.service.command(.bump, "ord-1:grill") } == "kitchen.unknownTicket", "nothing published yet")

        let order = h.order()
        try bus.publish(h.event(.orderPlaced, order), topic: Topic.order(state: order.state.rawValue, cafe: order.cafeId))
        // In-process delivery is prompt but not synchronous: ask until the bump takes (2 s at most).
        var bumped: TicketView?
        let deadline = Date().addingTimeInterval(2)
        while bumped == nil, Date() < deadline {
            bumped = try? h.service.command(.bump, "ord-1:grill")
            if bumped == nil { Thread.sleep(forTimeInterval: 0.005) }
        }
        #expect(bumped?.state == .ready)
        #expect(h.host.bus.cursor(source: "order-service", stream: "order") == 1)
        #expect(try h.screen().map(\.ticketId) == ["ord-1:salad"], "the order's other ticket is on the screen, once")
        #expect(try h.kitchenEvents() == ["kitchen.bumped ord-1:grill"])
        #expect(try h.pacingEvents().count == 1, "the order was paced once, when it was applied")
        #expect(errorCode { try h.service.command(.bump, "ord-9:grill") } == "kitchen.unknownTicket")
    }
}
