import KitchenCore
import Messages
import Testing

/// The kitchen's rules with the clock injected: recall window, age colours, order events,
/// rush ordering, the expediter's orders, all-day counts and the link status.
@Suite("Kitchen rules")
struct KitchenRulesTests {
    static let settings = KitchenSettings(yellowSeconds: 300, redSeconds: 480, recallSeconds: 120, cancelledLingerSeconds: 60, linkTimeoutSeconds: 3.5)

    static func ticket(_ id: String = "ord-1:grill", order: String = "ord-1", station: String = "grill", state: TicketState = .new,
                       rush: Bool = false, here: Bool = false, pickup: Double = 600, created: Double = 0,
                       bumped: Double? = nil, closed: Double? = nil, lines: [TicketLine] = []) -> Ticket {
        Ticket(ticketId: id, orderId: order, cafeId: "caffe-macs", station: station, state: state, lines: lines, pickupStart: .at(pickup),
               customerHere: here, createdAt: .at(created), rush: rush, bumpedAt: bumped.map { .at($0) }, closedAt: closed.map { .at($0) })
    }

    @Test("recall is open for the window after the bump, then refused with kitchen.recallWindowClosed", arguments: [
        (0.0, true), (60, true), (120, true), (120.5, false), (3600, false),
    ])
    func recallWindow(secondsAfterBump: Double, allowed: Bool) throws {
        let bumped = try TicketBoard.apply(.bump, to: Self.ticket(state: .inProgress), at: .at(100), settings: Self.settings)
        #expect(bumped.state == .ready && bumped.bumpedAt == .at(100))
        do {
            let recalled = try TicketBoard.apply(.recall, to: bumped, at: .at(100 + secondsAfterBump), settings: Self.settings)
            #expect(allowed)
            #expect(recalled.state == .inProgress && recalled.bumpedAt == nil)
        } catch {
            #expect(!allowed)
            #expect(error.code == "kitchen.recallWindowClosed")
        }
    }

    @Test("a recall window is configurable: at 30 s a recall 45 s after the bump is refused")
    func recallWindowConfigurable() throws {
        var settings = Self.settings
        settings.recallSeconds = 30
        let bumped = Self.ticket(state: .ready, bumped: 10)
        let late = errorCode { () throws(ServiceError) in try TicketBoard.apply(.recall, to: bumped, at: .at(55), settings: settings) }
        let inTime = errorCode { () throws(ServiceError) in try TicketBoard.apply(.recall, to: bumped, at: .at(40), settings: settings) }
        #expect(late == "kitchen.recallWindowClosed")
        #expect(inTime == nil)
    }

    @Test("station lifecycle: start, bump one station, recall it, bump both: ready only at the last bump")
    func lifecycleWithRecall() throws {
        let s = Self.settings
        var grill = Self.ticket("o:grill", order: "o", station: "grill")
        var salad = Self.ticket("o:salad", order: "o", station: "salad")
        grill = try TicketBoard.apply(.start, to: grill, at: .at(10), settings: s)
        grill = try TicketBoard.apply(.bump, to: grill, at: .at(20), settings: s)
        #expect(!TicketBoard.orderReady([grill, salad]))
        grill = try TicketBoard.apply(.recall, to: grill, at: .at(30), settings: s)
        #expect(grill.state == .inProgress)
        salad = try TicketBoard.apply(.bump, to: salad, at: .at(40), settings: s)
        #expect(!TicketBoard.orderReady([grill, salad]))
        grill = try TicketBoard.apply(.bump, to: grill, at: .at(50), settings: s)
        #expect(TicketBoard.orderReady([grill, salad]))
        #expect(Expediter.state(of: [grill, salad]) == .ready)
    }

    @Test("age colour: green under 5 min, yellow from 5, red from 8", arguments: [
        (0, AgeColour.green), (299, .green), (300, .yellow), (479, .yellow), (480, .red), (5000, .red),
    ])
    func ageColours(age: Int, colour: AgeColour) {
        #expect(TicketTimer.colour(ageSeconds: age, settings: Self.settings) == colour)
    }

    @Test("colour thresholds are configurable")
    func colourThresholdsConfigurable() {
        let fast = KitchenSettings(yellowSeconds: 60, redSeconds: 120)
        #expect(TicketTimer.colour(ageSeconds: 61, settings: fast) == .yellow)
        #expect(TicketTimer.colour(ageSeconds: 121, settings: fast) == .red)
    }

    @Test("age runs while open and stops at the bump", arguments: [
        (TicketState.new, nil as Double?, 400.0, 400),
        (.inProgress, nil, 90, 90),
        (.ready, 200, 900, 200),
        (.pickedUp, 250, 900, 250),
        (.new, nil, -5, 0),
    ])
    func ages(state: TicketState, bumped: Double?, now: Double, age: Int) {
        let ticket = Self.ticket(state: state, created: 0, bumped: bumped)
        #expect(TicketTimer.age(of: ticket, at: .at(now)) == age)
        #expect(TicketTimer.timed(ticket, at: .at(now), settings: Self.settings).ageSeconds == age)
    }

    @Test("order events: cancelled, picked up and no-show close a ticket; arrival marks the customer here; ready closes open ones", arguments: [
        (EventType.orderCancelled, TicketState.inProgress, TicketState.cancelled, true),
        (.orderCancelled, .ready, .cancelled, true),
        (.orderCancelled, .pickedUp, .pickedUp, false),
        (.orderPickedUp, .ready, .pickedUp, true),
        (.orderPickedUp, .cancelled, .cancelled, false),
        (.orderNoShow, .ready, .noShow, true),
        (.orderReady, .new, .ready, false),
        (.orderReady, .ready, .ready, false),
        (.orderPreparing, .new, .new, false),
        (.orderAccepted, .inProgress, .inProgress, false),
    ])
    func orderEvents(type: EventType, from: TicketState, to: TicketState, closes: Bool) {
        let next = TicketBoard.reacting(to: type, Self.ticket(state: from), at: .at(70))
        #expect(next.state == to)
        #expect((next.closedAt == .at(70)) == closes)
    }

    @Test("order.arrived marks the customer here and changes nothing else")
    func arrival() {
        let ticket = Self.ticket(state: .inProgress)
        let next = TicketBoard.reacting(to: .orderArrived, ticket, at: .at(5))
        #expect(next.customerHere && next.state == .inProgress)
        #expect(TicketBoard.reacting(to: .orderArrived, next, at: .at(9)) == next)
    }

    @Test("a cancelled ticket stays on the station screen, marked, for the linger time, then leaves")
    func cancelledLinger() {
        let cancelled = Self.ticket(state: .cancelled, closed: 100)
        #expect(TicketBoard.onStationScreen(cancelled, at: .at(130), settings: Self.settings))
        #expect(!TicketBoard.onStationScreen(cancelled, at: .at(161), settings: Self.settings))
        #expect(!TicketBoard.onStationScreen(Self.ticket(state: .ready, bumped: 10), at: .at(11), settings: Self.settings))
        let layout = ScreenLayout(views: [.allStations], view: .allStations, tickets: [cancelled], orders: [], counts: [], link: nil, status: "", selected: 0, colour: false)
        #expect(layout.lines(columns: 100, rows: 10).contains { $0.contains("CANCELLED") })
    }

    @Test("rush goes first, then customers here, then pickup window, then oldest")
    func rushOrdering() {
        let tickets = [
            Self.ticket("late", pickup: 1800),
            Self.ticket("rushed-late", rush: true, pickup: 2400),
            Self.ticket("here", here: true, pickup: 1200),
            Self.ticket("early", pickup: 600),
            Self.ticket("rushed-early", rush: true, pickup: 900),
        ]
        #expect(TicketBoard.sorted(tickets, at: t0).map(\.ticketId) == ["rushed-early", "rushed-late", "here", "early", "late"])
    }

    @Test("the expediter sees whole orders with every station, in screen order")
    func expediter() {
        let tickets = [
            Self.ticket("a:grill", order: "a", station: "grill", state: .ready, pickup: 600, bumped: 30),
            Self.ticket("a:salad", order: "a", station: "salad", state: .inProgress, pickup: 600),
            Self.ticket("b:espresso", order: "b", station: "espresso", state: .new, rush: true, pickup: 1200, created: 100),
            Self.ticket("c:grill", order: "c", station: "grill", state: .ready, pickup: 300, bumped: 40),
        ]
        let orders = Expediter.orders(tickets, at: .at(400), settings: Self.settings)
        #expect(orders.map(\.orderId) == ["b", "c", "a"])
        #expect(orders.map(\.state) == [.new, .ready, .inProgress])
        #expect(orders[2].tickets.map(\.station) == ["grill", "salad"])
        #expect(orders[2].ageSeconds == 400 && orders[2].colour == .yellow)
        #expect(orders[0].ageSeconds == 300 && orders[0].colour == .yellow)
    }

    @Test("all-day counts add up open tickets per station and item; bumped and cancelled ones do not count")
    func allDay() {
        let burger = TicketLine(name: "Burger", quantity: 2, modifiers: ["cheese"])
        let tickets = [
            Self.ticket("a:grill", station: "grill", lines: [burger, TicketLine(name: "Fries", quantity: 1, modifiers: [])]),
            Self.ticket("b:grill", order: "b", station: "grill", state: .inProgress, lines: [TicketLine(name: "Burger", quantity: 3, modifiers: [])]),
            Self.ticket("c:grill", order: "c", station: "grill", state: .ready, lines: [burger]),
            Self.ticket("d:grill", order: "d", station: "grill", state: .cancelled, lines: [burger]),
            Self.ticket("e:salad", order: "e", station: "salad", lines: [TicketLine(name: "Caesar", quantity: 1, modifiers: [])]),
        ]
        #expect(AllDayCounts.counts(tickets) == [
            ItemCount(name: "Burger", station: "grill", quantity: 5),
            ItemCount(name: "Fries", station: "grill", quantity: 1),
            ItemCount(name: "Caesar", station: "salad", quantity: 1),
        ])
    }

    @Test("link status: connecting, up, catching up, order-service down, bus down", arguments: [
        // own heartbeat at, order heartbeat at, order last seq, cursor, now → bus, order-service
        (nil as Double?, nil as Double?, UInt64(0), UInt64(0), 1.0, LinkState.connecting, LinkState.connecting),
        (nil, nil, 0, 0, 10, .down, .down),
        (9, 9.5, 12, 12, 10, .up, .up),
        (9, 9.5, 12, 7, 10, .up, .catchingUp),
        (9, 2, 12, 12, 10, .up, .down),
        (9, nil, 0, 0, 10, .up, .down),
        (2, 2, 12, 12, 10, .down, .down),
    ])
    func links(own: Double?, order: Double?, lastSeq: UInt64, cursor: UInt64, now: Double, bus: LinkState, orders: LinkState) {
        var monitor = LinkMonitor(startedAt: .at(0))
        if let own { monitor.busTraffic(at: .at(own)) }
        if let order { monitor.orderHeartbeat(at: .at(order), lastSeq: lastSeq) }
        let status = monitor.status(at: .at(now), cursor: cursor, settings: Self.settings)
        #expect(status.bus == bus && status.orderService == orders)
        #expect(status.message.isEmpty == (bus == .up && orders == .up))
    }

    @Test("an order event heard on the bus proves both links before any heartbeat; a later seq than applied is catching up")
    func orderEventsProveLinks() {
        var monitor = LinkMonitor(startedAt: .at(0))
        monitor.busTraffic(at: .at(0.4))
        monitor.orderEvent(at: .at(0.4), seq: 3)
        let applied = monitor.status(at: .at(0.5), cursor: 3, settings: Self.settings)
        #expect(applied.bus == .up && applied.orderService == .up && applied.message.isEmpty)
        #expect(monitor.status(at: .at(0.5), cursor: 2, settings: Self.settings).orderService == .catchingUp)
        monitor.orderHeartbeat(at: .at(1), lastSeq: 3)
        monitor.orderEvent(at: .at(1), seq: 2)
        #expect(monitor.orderLastSeq == 3, "an older event never lowers what order-service announced")
    }

    @Test("the screen never shows an empty queue silently: a down link is on the second line")
    func screenShowsLinkDown() {
        let link = LinkMonitor(startedAt: .at(0)).status(at: .at(10), cursor: 0, settings: Self.settings)
        let layout = ScreenLayout(views: [.allStations], view: .allStations, tickets: [], orders: [], counts: [], link: link, status: "", selected: 0, colour: false)
        let lines = layout.lines(columns: 80, rows: 12)
        #expect(lines.count == 12)
        #expect(lines[1].contains("NO LINK TO THE BUS"))
        #expect(lines.contains { $0.contains("no tickets shown: see the link line above") })
        let unanswered = ScreenLayout(views: [.allStations], view: .allStations, tickets: [], orders: [], counts: [], link: nil, status: "", selected: 0, colour: false)
        #expect(unanswered.lines(columns: 80, rows: 12)[1].contains("KITCHEN-DISPLAY NOT ANSWERING"))
    }

    @Test("the screen fits any terminal size: no line wider than the columns, exactly the rows", arguments: [(20, 5), (80, 24), (200, 60)])
    func screenFits(columns: Int, rows: Int) {
        let tickets = (0..<40).map { Self.ticket("o\($0):grill", order: "o\($0)", lines: [TicketLine(name: "Grass-fed burger with a long name", quantity: 2, modifiers: ["cheese", "bacon"])]) }
        let layout = ScreenLayout(views: ScreenLayout.views(stations: ["grill"]), view: .allStations, tickets: tickets, orders: [], counts: AllDayCounts.counts(tickets),
                                  link: KitchenLink(bus: .up, orderService: .up, message: ""), status: "ok", selected: 39, colour: false)
        let lines = layout.lines(columns: columns, rows: rows)
        #expect(lines.count == rows)
        #expect(lines.allSatisfy { $0.count <= max(columns, 20) })
        if rows > 5 { #expect(lines.contains { $0.hasPrefix(">") }, "the selected row stays in sight") }
    }
}
