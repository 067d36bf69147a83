import Messages
import OrderCore
import Testing

@Suite("Order progress")
struct OrderProgressTests {
    typealias F = OrderFixtures

    static func kitchenEvent(station: String? = "grill") -> KitchenEvent {
        KitchenEvent(orderId: "ord-1", cafeId: "caffe-macs", ticketId: nil, station: station, at: t0)
    }

    /// What each kitchen event does to an order in each state: the states it passes through.
    @Test("kitchen events", arguments: [
        (EventType.kitchenStarted, OrderState.accepted, [OrderState.preparing]),
        (.kitchenStarted, .placed, []),
        (.kitchenStarted, .preparing, []),
        (.kitchenReady, .placed, [.accepted, .preparing, .ready]),
        (.kitchenReady, .accepted, [.preparing, .ready]),
        (.kitchenReady, .preparing, [.ready]),
        (.kitchenReady, .ready, []),
        (.kitchenReady, .cancelled, []),
        (.kitchenBumped, .preparing, []),
        (.kitchenRecalled, .ready, [.preparing]),
        (.kitchenRecalled, .preparing, []),
        (.kitchenRecalled, .pickedUp, []),
    ])
    func kitchen(type: EventType, state: OrderState, path: [OrderState]) throws {
        let effects = try OrderProgress.kitchen(type, Self.kitchenEvent(), order: F.order(state), now: t0)
        #expect(effects?.audit.map(\.to) ?? [] == path)
        #expect(effects?.events.map(\.type) ?? [] == path.map(EventType.order))
        #expect(effects?.order.state ?? state == path.last ?? state)
        #expect(effects?.audit.allSatisfy { $0.actor == .kitchen && $0.at == t0 } ?? true)
    }

    @Test("each recall of a ready order is counted, so the next ready is told again")
    func recallCounts() throws {
        let first = try #require(try OrderProgress.kitchen(.kitchenRecalled, Self.kitchenEvent(), order: F.order(.ready), now: t0))
        #expect(first.order.recalls == 1 && first.order.state == .preparing)
        #expect(first.events.map(\.event.previous) == [.ready] && first.events.first?.event.order.recalls == 1)
        #expect(first.audit.map(\.reason) == ["recalled at grill after ready"])
        var again = F.order(.ready)
        again.recalls = 1
        #expect(try OrderProgress.kitchen(.kitchenRecalled, Self.kitchenEvent(), order: again, now: t0)?.order.recalls == 2)
    }

    /// An order the kitchen has not finished, `seconds` after its window ended (grace 15 min).
    @Test("overdue: not ready by the window's end plus grace, escalated once, never closed", arguments: [
        (OrderState.accepted, 900.0, false),
        (.accepted, 901, true),
        (.placed, 3600, true),
        (.preparing, 901, true),
        (.ready, 3600, false),
        (.cancelled, 3600, false),
        (.pickedUp, 3600, false),
    ])
    func overdue(state: OrderState, seconds: Double, escalated: Bool) throws {
        let order = F.order(state)
        let now = order.pickupEnd.adding(seconds: seconds)
        let effects = OrderProgress.overdue(order, graceMinutes: 15, now: now)
        #expect((effects != nil) == escalated)
        guard let effects else { return }
        #expect(effects.order.state == state && effects.order.overdueAt == now)
        #expect(effects.events.map(\.type) == [.orderOverdue] && effects.events.first?.topic == "order.overdue.\(order.cafeId).")
        #expect(effects.audit.map { "\($0.from?.rawValue ?? "-")→\($0.to.rawValue) \($0.actor.rawValue)" } == ["\(state.rawValue)→\(state.rawValue) system"])
        #expect(OrderProgress.overdue(effects.order, graceMinutes: 15, now: now.adding(seconds: 3600)) == nil, "once")
    }

    @Test("why the kitchen moved an order")
    func kitchenReasons() throws {
        let started = try #require(try OrderProgress.kitchen(.kitchenStarted, Self.kitchenEvent(), order: F.order(.accepted), now: t0))
        #expect(started.audit.map(\.reason) == ["started at grill"])
        let anywhere = try #require(try OrderProgress.kitchen(.kitchenStarted, Self.kitchenEvent(station: nil), order: F.order(.accepted), now: t0))
        #expect(anywhere.audit.map(\.reason) == ["started at kitchen"])
        let ready = try #require(try OrderProgress.kitchen(.kitchenReady, Self.kitchenEvent(), order: F.order(.accepted), now: t0))
        #expect(ready.audit.map(\.reason) == ["bumped", "every station bumped"])
    }

    @Test("a kitchen event for an unknown order, or of a type order-service does not take, is refused")
    func kitchenRefusals() {
        #expect(errorCode { () throws(ServiceError) in try OrderProgress.kitchen(.kitchenReady, Self.kitchenEvent(), order: nil, now: t0) } == "order.unknown")
        #expect(errorCode { () throws(ServiceError) in try OrderProgress.kitchen(.orderReady, Self.kitchenEvent(), order: F.order(.ready), now: t0) } == "message.unknownType")
    }

    /// The window at t0 ends at t0 + 600 s; Caffè Macs keeps a ready order 15 minutes more.
    @Test("no-show after the window and the café's grace", arguments: [
        (OrderState.ready, 15 as Int?, 600.0 + 900, false),
        (.ready, 15, 600 + 900.001, true),
        (.ready, 5, 600 + 301, true),
        (.ready, nil, 600 + 900, false),
        (.ready, nil, 600 + 901, true),
        (.preparing, 15, 600 + 86_400, false),
        (.accepted, 15, 600 + 86_400, false),
        (.pickedUp, 15, 600 + 86_400, false),
    ] as [(OrderState, Int?, Double, Bool)])
    func noShow(state: OrderState, grace: Int?, seconds: Double, expected: Bool) throws {
        #expect(OrderProgress.isNoShow(F.order(state), graceMinutes: grace, now: .at(seconds)) == expected)
        let effects = try OrderProgress.noShow(F.order(state), graceMinutes: grace, now: .at(seconds))
        #expect((effects != nil) == expected)
        if let effects {
            #expect(effects.audit == [OrderAudit(orderId: "ord-1", from: .ready, to: .noShow, actor: .system,
                                                 reason: "not collected by the end of the pickup window", at: .at(seconds))])
            #expect(effects.events.map(\.topic) == ["order.noShow.caffe-macs."])
        }
    }

    @Test("the counter hands over a ready order only")
    func handOver() throws {
        #expect(try OrderProgress.handOver(F.order(.ready), now: t0).order.state == .pickedUp)
        #expect(errorCode { () throws(ServiceError) in try OrderProgress.handOver(F.order(.preparing), now: t0) } == "order.illegalTransition")
    }
}
