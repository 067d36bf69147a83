import KitchenCore
import Messages
import Testing

/// Fire times and pacing on an injected clock: an order's stations finish together at its target,
/// and the target follows the customer. Times are seconds from `t0`; the window starts at 1200.
@Suite("Kitchen pacing")
struct KitchenPacingTests {
    static func line(_ item: String, station: String, prep: Int?) -> OrderLine {
        OrderLine(itemId: item, name: item, quantity: 1, modifiers: [], station: station, unitPrice: 100, lineTotal: 100, prepSeconds: prep)
    }

    /// A burger (240 s) and fries (180 s) at the grill, a latte (60 s) at the bar.
    static func order(channel: OrderChannel = .app, paced: Bool? = true, approachedAt: Double? = nil, walk: Double = 120,
                      awayWalk: Int? = nil) -> OrderSnapshot {
        OrderSnapshot(orderId: "ord-1", cafeId: "caffe-macs", cafeName: "Caffè Macs", timeZone: "America/Los_Angeles", currency: "USD",
                      channel: channel, userId: "u1", deviceId: "phone-1", state: .accepted,
                      lines: [line("burger", station: "grill", prep: 240), line("fries", station: "grill", prep: 180), line("latte", station: "bar", prep: 60)],
                      total: 300, pickupStart: .at(1200), pickupEnd: .at(1800), placedAt: t0, customerHere: false, paced: paced,
                      approachedAt: approachedAt.map(Timestamp.at), expectedArrivalAt: approachedAt.map { .at($0 + walk) },
                      awayAt: awayWalk.map { _ in .at(-30) }, awayWalkSeconds: awayWalk)
    }

    /// The order placed at `placed`, paced as the kitchen does on `order.placed`.
    static func placed(_ order: OrderSnapshot, at placed: Double = 0) throws -> [Ticket] {
        let tickets = TicketBoard.tickets(for: order, at: .at(placed))
        return try #require(Pacing.paced(after: .orderPlaced, order: order, tickets: tickets, at: .at(placed))).tickets
    }

    static func fires(_ tickets: [Ticket]) -> [String: Double] {
        Dictionary(uniqueKeysWithValues: tickets.map { ($0.station, $0.fireAt.map { $0.seconds(since: t0) } ?? -1) })
    }

    @Test("stations fire their longest prep before the target, so the order finishes together")
    func finishTogether() throws {
        let tickets = try Self.placed(Self.order())
        #expect(tickets.map(\.prepSeconds) == [240, 60])
        #expect(tickets.allSatisfy { $0.targetReadyAt == .at(1200) })
        #expect(Self.fires(tickets) == ["grill": 960, "bar": 1140])
    }

    @Test("the first target, by channel and how close the window is", arguments: [
        // (channel, placed at, target, reason)
        (OrderChannel.app, 0.0, 1200.0, PacingReason.window),
        (.app, 1000, 1240, .window),       // the window is closer than the burger: as soon as the kitchen can
        (.kiosk, 0, 240, .immediate),      // the customer is at the counter
        (.appClip, 0, 240, .immediate),
    ])
    func firstTarget(channel: OrderChannel, placedAt: Double, target: Double, reason: PacingReason) throws {
        let order = Self.order(channel: channel)
        let tickets = TicketBoard.tickets(for: order, at: .at(placedAt))
        let paced = try #require(Pacing.paced(after: .orderPlaced, order: order, tickets: tickets, at: .at(placedAt)))
        #expect(paced.pacing.target == .at(target) && paced.pacing.reason == reason && paced.pacing.previousTarget == nil)
        #expect(paced.pacing.fires.map(\.fireAt) == [.at(target - 240), .at(target - 60)])
    }

    @Test("an approach moves the target to the expected arrival, earlier or later, never before the kitchen can make it", arguments: [
        // (approach at, walk, new target, reason)
        (300.0, 120.0, 540.0, "early: cook for when they arrive, not the window"),
        (900, 400, 1300, "arriving after the window starts: hold the food for them"),
        (1100, 120, 1340, "nothing started though the grill should have: as soon as the kitchen can"),
        (800, 60, 1040, "the walk is shorter than the burger: as soon as the kitchen can"),
        (1500, 120, 1740, "late: well after the window"),
    ])
    func approach(at: Double, walk: Double, target: Double, why: String) throws {
        let placed = try Self.placed(Self.order())
        let order = Self.order(approachedAt: at, walk: walk)
        let paced = try #require(Pacing.paced(after: .orderApproaching, order: order, tickets: placed, at: .at(at)), "\(why)")
        #expect(paced.pacing.target == .at(target), "\(why)")
        #expect(paced.pacing.reason == .approach && paced.pacing.previousTarget == .at(1200) && paced.pacing.expectedArrival == .at(at + walk))
        #expect(Self.fires(paced.tickets) == ["grill": target - 240, "bar": target - 60], "\(why)")
    }

    @Test("arrival: as soon as the kitchen can make what has not started; a station already cooking is not held back")
    func arrival() throws {
        var tickets = try Self.placed(Self.order())
        tickets[0].state = .inProgress  // the grill started the burger early
        let paced = try #require(Pacing.paced(after: .orderArrived, order: Self.order(), tickets: tickets, at: .at(700)))
        #expect(paced.pacing.target == .at(760) && paced.pacing.reason == .arrival)
        #expect(paced.pacing.fires.map(\.station) == ["bar"], "only stations not started are announced")
    }

    @Test("an unpaced café's order keeps the window whatever the customer does; no approach, no change")
    func unpacedAndSilent() throws {
        let placed = try Self.placed(Self.order(paced: false))
        #expect(Pacing.paced(after: .orderApproaching, order: Self.order(paced: false, approachedAt: 300), tickets: placed, at: .at(300)) == nil)
        #expect(Pacing.paced(after: .orderArrived, order: Self.order(paced: false), tickets: placed, at: .at(700)) == nil)
        // Nothing about the customer: the target stays at the window's start.
        for type in [EventType.orderAccepted, .orderPreparing, .orderClaimed, .orderOverdue] {
            #expect(Pacing.paced(after: type, order: Self.order(), tickets: try Self.placed(Self.order()), at: .at(900)) == nil, "\(type)")
        }
        // An approach that asks for the target already set changes nothing.
        let once = try #require(Pacing.paced(after: .orderApproaching, order: Self.order(approachedAt: 300), tickets: placed, at: .at(300)))
        #expect(Pacing.paced(after: .orderApproaching, order: Self.order(approachedAt: 300), tickets: once.tickets, at: .at(300)) == nil)
    }

    @Test("held until the fire time with a countdown, then fired; started tickets are neither")
    func holdThenFire() throws {
        let grill = try Self.placed(Self.order())[0]
        let settings = KitchenSettings()
        let before = TicketTimer.timed(grill, at: .at(900), settings: settings)
        #expect(before.firing == .hold && before.holdSeconds == 60)
        #expect(ScreenLayout.label(before) == "HOLD 1:00")
        let at = TicketTimer.timed(grill, at: .at(960), settings: settings)
        #expect(at.firing == .fire && at.holdSeconds == nil && ScreenLayout.label(at) == "FIRE")
        var started = grill
        started.state = .inProgress
        #expect(TicketTimer.timed(started, at: .at(900), settings: settings).firing == nil)
    }

    @Test("screen order: rush, overdue, then fired ahead of held, customers here first, then by fire time")
    func screenOrder() throws {
        func ticket(_ id: String, fire: Double, rush: Bool = false, overdue: Bool = false, here: Bool = false) -> Ticket {
            Ticket(ticketId: id, orderId: id, cafeId: "caffe-macs", station: "grill", state: .new, lines: [], pickupStart: .at(1200),
                   customerHere: here, createdAt: t0, rush: rush, prepSeconds: 60, targetReadyAt: .at(fire + 60), fireAt: .at(fire),
                   overdue: overdue ? true : nil)
        }
        let tickets = [ticket("held-soon", fire: 700), ticket("held-later", fire: 900), ticket("fired", fire: 400),
                       ticket("fired-earlier", fire: 300), ticket("here", fire: 450, here: true), ticket("overdue", fire: 100, overdue: true),
                       ticket("rush-held", fire: 2000, rush: true)]
        #expect(TicketBoard.sorted(tickets, at: .at(500)).map(\.ticketId)
                == ["rush-held", "overdue", "here", "fired-earlier", "fired", "held-soon", "held-later"])
    }

    @Test("a customer known outside the approach area: what the walk covers waits for the approach, bounded by the window's end; longer items keep the window")
    func away() throws {
        // A 200 s walk covers the 60 s latte but not the 240 s burger.
        let order = Self.order(awayWalk: 200)
        let tickets = TicketBoard.tickets(for: order, at: .at(0))
        let paced = try #require(Pacing.paced(after: .orderPlaced, order: order, tickets: tickets, at: .at(0)))
        #expect(paced.pacing.target == .at(1800) && paced.pacing.reason == .away)
        #expect(Self.fires(paced.tickets) == ["grill": 960, "bar": 1740], "the burger as at the window; the latte held until the window's end")
        // At the window's start the burger is fired, the latte still held: nobody is near yet.
        #expect(!Pacing.isHeld(paced.tickets[0], at: .at(960)) && Pacing.isHeld(paced.tickets[1], at: .at(1200)))
        // They come near at 1300 (walk 200 s): the target follows them, the latte fires to finish on their arrival.
        var cooking = paced.tickets
        cooking[0].state = .inProgress
        let approach = try #require(Pacing.paced(after: .orderApproaching, order: Self.order(approachedAt: 1300, walk: 200, awayWalk: 200),
                                                 tickets: cooking, at: .at(1300)))
        #expect(approach.pacing.target == .at(1500) && approach.pacing.reason == .approach && approach.pacing.previousTarget == .at(1800))
        #expect(Self.fires(approach.tickets)["bar"] == 1440)
        // Never a word of them: the latte still fires, to be ready by the window's end.
        #expect(!Pacing.isHeld(paced.tickets[1], at: .at(1740)))
    }

    @Test("a walk that covers every item holds the whole order; one that covers none holds nothing past the window", arguments: [
        // (walk, grill fire, bar fire)
        (300, 1560.0, 1740.0),
        (30, 960, 1140),
        (-5, 960, 1140),            // nonsense from the wire covers nothing
        (1_000_000, 1560, 1740),    // clamped, and everything is covered anyway
    ])
    func awayCover(walk: Int, grill: Double, bar: Double) throws {
        let order = Self.order(awayWalk: walk)
        let paced = try #require(Pacing.paced(after: .orderPlaced, order: order, tickets: TicketBoard.tickets(for: order, at: .at(0)), at: .at(0)))
        #expect(Self.fires(paced.tickets) == ["grill": grill, "bar": bar])
    }

    @Test("away is for paced app orders only: an unpaced café, a kiosk and an App Clip ignore it")
    func awayOnlyPaced() throws {
        for (channel, paced, reason) in [(OrderChannel.app, false as Bool?, PacingReason.window), (.kiosk, true, .immediate), (.appClip, true, .immediate)] {
            let order = Self.order(channel: channel, paced: paced, awayWalk: 200)
            let decision = try #require(Pacing.paced(after: .orderPlaced, order: order, tickets: TicketBoard.tickets(for: order, at: .at(0)), at: .at(0)))
            #expect(decision.pacing.reason == reason, "\(channel)")
        }
    }
}
