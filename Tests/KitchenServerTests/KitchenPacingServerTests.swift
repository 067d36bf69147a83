import Foundation
@testable import KitchenServer
import Messages
import Testing
import TestSupport

/// kitchen-display's pacing with its clock in the test's hand: order events in, fire times and
/// `kitchen.paced` out, in the consumer's transaction; the screen holds, then fires.
@Suite(.serialized)
struct KitchenPacingServerTests {
    /// The harness's order with prep times: a 240 s burger at the grill, a 150 s salad.
    static func timed(_ h: KitchenHarness, _ orderId: String = "ord-1") -> OrderSnapshot {
        var order = h.order(orderId)
        order.lines[0].prepSeconds = 240
        order.lines[1].prepSeconds = 150
        order.paced = true
        return order
    }

    @Test("a placed order is held until each station's fire time, then fired, and the target is announced")
    func holdThenFire() throws {
        let h = try KitchenHarness()
        let order = Self.timed(h)
        try h.apply(h.event(.orderPlaced, order))
        let start = order.pickupStart
        var screen = try h.screen()
        #expect(screen.map(\.ticketId) == ["ord-1:grill", "ord-1:salad"], "held: by fire time")
        #expect(screen.map(\.fireAt) == [start.adding(seconds: -240), start.adding(seconds: -150)])
        #expect(screen.allSatisfy { $0.firing == .hold && $0.targetReadyAt == start })
        #expect(screen.first?.holdSeconds == 900 - 240)
        h.clock.set(start.adding(seconds: -240))
        screen = try h.screen()
        #expect(screen.map(\.firing) == [.fire, .hold])
        let pacing = try h.pacingEvents()
        #expect(pacing.count == 1 && pacing[0].reason == .window && pacing[0].target == start && pacing[0].previousTarget == nil)
        // A chef may start a held ticket early.
        #expect(try h.service.command(.start, "ord-1:salad").state == .inProgress)
    }

    @Test("the customer's approach moves the target to their expected arrival; arrival to as soon as the kitchen can")
    func approachAndArrival() throws {
        let h = try KitchenHarness()
        var order = Self.timed(h)
        try h.apply(h.event(.orderPlaced, order))
        h.clock.advance(seconds: 60)
        order.approachedAt = h.clock.now()
        order.expectedArrivalAt = h.clock.now().adding(seconds: 300)
        try h.apply(h.event(.orderApproaching, order))
        let screen = try h.screen()
        #expect(screen.allSatisfy { $0.arriving == true && $0.targetReadyAt == order.expectedArrivalAt })
        #expect(screen.map(\.fireAt) == [h.clock.now().adding(seconds: 60), h.clock.now().adding(seconds: 150)])
        h.clock.advance(seconds: 30)
        order.customerHere = true
        try h.apply(h.event(.orderArrived, order))
        let here = try h.screen()
        #expect(here.allSatisfy { $0.customerHere && $0.targetReadyAt == h.clock.now().adding(seconds: 240) })
        // The grill fires now; the salad 90 s later, to finish with the burger.
        #expect(here.map(\.firing) == [.fire, .hold] && here.last?.holdSeconds == 90)
        let pacing = try h.pacingEvents()
        #expect(pacing.map(\.reason) == [.window, .approach, .arrival])
        #expect(pacing[1].previousTarget == order.pickupStart && pacing[2].previousTarget == order.expectedArrivalAt)
    }

    @Test("an event delivered again changes nothing and announces nothing; the queue rebuilt after a restart keeps its fire times")
    func replayAndRestart() throws {
        let h = try KitchenHarness()
        var order = Self.timed(h)
        let placed = h.event(.orderPlaced, order)
        try h.apply(placed)
        try h.apply(placed)
        order.approachedAt = h.clock.now()
        order.expectedArrivalAt = h.clock.now().adding(seconds: 120)
        let approaching = h.event(.orderApproaching, order)
        try h.apply(approaching)
        try h.apply(approaching)
        #expect(try h.pacingEvents().count == 2)
        let before = try h.screen()
        try h.restart()
        #expect(try h.screen() == before)
    }

    @Test("an overdue order is marked and put ahead of the rest")
    func overdue() throws {
        let h = try KitchenHarness()
        try h.apply(h.event(.orderPlaced, Self.timed(h, "ord-1")))
        var late = Self.timed(h, "ord-2")
        try h.apply(h.event(.orderPlaced, late))
        late.overdueAt = h.clock.now()
        try h.apply(h.event(.orderOverdue, late))
        let screen = try h.screen()
        #expect(screen.first?.orderId == "ord-2" && screen.first?.overdue == true)
        #expect(try h.service.orders(OrdersQuery()).orders.first?.overdue == true)
    }
}
