import Foundation
import KitchenCore
@testable import KitchenServer
import Messages
import Testing
import TestSupport

/// kitchen-display's shell in-process: the recall window and ticket colours as the clock moves
/// (no sleeping), the order-ready announcement, and the queue rebuilt from its file after a
/// restart. Real SQLite, clock in the test's hand.
@Suite(.serialized)
struct KitchenServerTests {
    @Test("a bumped ticket can be recalled within --recall-seconds, and is refused after, staying bumped")
    func recallWindow() throws {
        let h = try KitchenHarness(arguments: ["--recall-seconds", "90"])
        try h.apply(h.event(.orderPlaced, h.order()))
        _ = try h.service.command(.bump, "ord-1:grill")
        h.clock.advance(seconds: 90)
        let recalled = try h.service.command(.recall, "ord-1:grill")
        #expect(recalled.state == .inProgress && recalled.bumpedAt == nil)
        #expect(try h.screen().map(\.ticketId).contains("ord-1:grill"), "a recalled ticket is back on the grill's screen")

        _ = try h.service.command(.bump, "ord-1:grill")
        h.clock.advance(seconds: 90.5)
        let refusal = try requireValue(serviceError { try h.service.command(.recall, "ord-1:grill") })
        #expect(refusal.code == "kitchen.recallWindowClosed" && refusal.message.contains("recall is open for 90 s"))
        #expect(try h.ticket("ord-1:grill")?.state == .ready)
        #expect(try h.kitchenEvents() == ["kitchen.bumped ord-1:grill", "kitchen.recalled ord-1:grill", "kitchen.bumped ord-1:grill"])
    }

    @Test("a ticket turns yellow at 300 s and red at 480 s by default, and its clock stops when it is bumped")
    func ageColours() throws {
        let h = try KitchenHarness()
        try h.apply(h.event(.orderPlaced, h.order()))
        func grill() throws -> TicketView { try requireValue(try h.ticket("ord-1:grill")) }
        #expect(try grill().colour == .green && grill().ageSeconds == 0)
        h.clock.advance(seconds: 299)
        #expect(try grill().colour == .green)
        h.clock.advance(seconds: 1)
        #expect(try grill().colour == .yellow && grill().ageSeconds == 300)
        _ = try h.service.command(.bump, "ord-1:salad")
        h.clock.advance(seconds: 180)
        #expect(try grill().colour == .red && grill().ageSeconds == 480)
        // The expediter sees the order as old as its oldest open ticket; the bumped salad stopped at 300.
        let order = try requireValue(try h.service.orders(OrdersQuery()).orders.first)
        #expect(order.colour == .red && order.ageSeconds == 480)
        #expect(try h.ticket("ord-1:salad")?.ageSeconds == 300 && h.ticket("ord-1:salad")?.colour == .yellow)
    }

    @Test("bumping an order's last open ticket announces the order ready, once")
    func orderReadyOnLastBump() throws {
        let h = try KitchenHarness()
        try h.apply(h.event(.orderPlaced, h.order()))
        _ = try h.service.command(.start, "ord-1:grill")
        _ = try h.service.command(.bump, "ord-1:grill")
        #expect(try h.kitchenEvents() == ["kitchen.started ord-1:grill", "kitchen.bumped ord-1:grill"])
        _ = try h.service.command(.bump, "ord-1:salad")
        #expect(try h.kitchenEvents().suffix(2) == ["kitchen.bumped ord-1:salad", "kitchen.ready ord-1"])
        #expect(errorCode { try h.service.command(.bump, "ord-1:salad") } == "kitchen.illegalTransition")
        #expect(errorCode { try h.service.command(.bump, "ord-9:grill") } == "kitchen.unknownTicket")
        #expect(try h.kitchenEvents().count == 4)
    }

    @Test("after a restart on the same file the queue is rebuilt: states, rush and ages as they were, no ticket doubled by a replay")
    func rebuiltAfterRestart() throws {
        let h = try KitchenHarness()
        let placed = h.event(.orderPlaced, h.order("ord-1"))
        try h.apply(placed)
        try h.apply(h.event(.orderPlaced, h.order("ord-2")))
        _ = try h.service.command(.start, "ord-1:grill")
        _ = try h.service.rush(RushCommand(orderId: "ord-2", rush: true))
        h.clock.advance(seconds: 300)
        let ready = h.event(.orderReady, h.order("ord-1", state: .ready))
        try h.apply(ready)
        let before = try h.screen()
        #expect(before.map(\.ticketId) == ["ord-2:grill", "ord-2:salad"], "order-service's ready closed ord-1's open tickets; ord-2 is rushed")

        h.clock.advance(seconds: 60)
        try h.restart()
        let after = try h.screen()
        #expect(after.map(\.ticketId) == before.map(\.ticketId))
        #expect(after.allSatisfy { $0.rush && $0.state == .new && $0.ageSeconds == 360 && $0.colour == .yellow })
        #expect(try h.service.counts(CountsQuery(station: "grill")).counts.map(\.quantity) == [2])

        // A chef recalls ord-1's grill ticket; the same order events delivered again change nothing.
        #expect(try h.service.command(.recall, "ord-1:grill").state == .inProgress)
        try h.apply(placed)
        try h.apply(ready)
        #expect(try h.ticket("ord-1:grill")?.state == .inProgress, "an old order.ready does not bump a recalled ticket again")
        #expect(try h.service.tickets(TicketsQuery(includeDone: true)).tickets.count == 4)
    }
}
