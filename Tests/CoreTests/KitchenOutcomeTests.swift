import KitchenCore
import Messages
import Testing

/// What the kitchen's commands and order events come to, as the shell stores and publishes it:
/// the ticket after a command and its announcements, the tickets an order event adds or changes,
/// and the `kds.*` views.
@Suite("Kitchen outcomes")
struct KitchenOutcomeTests {
    static let settings = KitchenSettings()

    static func ticket(_ station: String, order: String = "ord-1", state: TicketState = .new, cafe: String = "caffe-macs", created: Double = 0) -> Ticket {
        Ticket(ticketId: "\(order):\(station)", orderId: order, cafeId: cafe, station: station, state: state, lines: [TicketLine(name: "Fries", quantity: 2, modifiers: [])],
               pickupStart: .at(600), customerHere: false, createdAt: .at(created))
    }

    @Test("a bump announces kitchen.bumped, and kitchen.ready with it only when it was the order's last open ticket")
    func bumpAnnouncements() throws {
        let grill = Self.ticket("grill"), salad = Self.ticket("salad")
        let first = try TicketBoard.perform(.bump, ticketId: grill.ticketId, orderTickets: [grill, salad], at: .at(30), settings: Self.settings)
        #expect(first.ticket.state == .ready && first.ticket.bumpedAt == .at(30))
        #expect(first.announcements.map(\.type) == [.kitchenBumped])
        #expect(first.announcements[0].topic == "kitchen.bumped.caffe-macs.")
        #expect(first.announcements[0].event == KitchenEvent(orderId: "ord-1", cafeId: "caffe-macs", ticketId: "ord-1:grill", station: "grill", at: .at(30)))
        let last = try TicketBoard.perform(.bump, ticketId: salad.ticketId, orderTickets: [first.ticket, salad], at: .at(40), settings: Self.settings)
        #expect(last.announcements.map(\.type) == [.kitchenBumped, .kitchenReady])
        #expect(last.announcements[1].topic == "kitchen.ready.caffe-macs." && last.announcements[1].event.ticketId == nil)
    }

    @Test("start and recall announce themselves; an unknown ticket and an illegal move are refused", arguments: [
        (TicketBoard.Command.start, TicketState.new, "kitchen.started" as String?, nil as String?),
        (.recall, .ready, "kitchen.recalled", nil),
        (.start, .ready, nil, "kitchen.illegalTransition"),
    ])
    func otherCommands(command: TicketBoard.Command, state: TicketState, announced: String?, refusal: String?) {
        var ticket = Self.ticket("grill", state: state)
        if state == .ready { ticket.bumpedAt = .at(0) }
        #expect(errorCode { () throws(ServiceError) in try TicketBoard.perform(command, ticketId: "ord-1:grill", orderTickets: [ticket], at: .at(10), settings: Self.settings) } == refusal)
        if let announced {
            let outcome = try? TicketBoard.perform(command, ticketId: "ord-1:grill", orderTickets: [ticket], at: .at(10), settings: Self.settings)
            #expect(outcome?.announcements.map(\.type.rawValue) == [announced])
        }
        #expect(errorCode { () throws(ServiceError) in try TicketBoard.perform(command, ticketId: "ord-9:grill", orderTickets: [], at: .at(10), settings: Self.settings) } == "kitchen.unknownTicket")
    }

    @Test("an order event adds tickets when placed, and otherwise writes only the tickets it changes")
    func orderEventChanges() {
        let order = TicketBoardTests.twoStations
        let placed = TicketBoard.changes(after: .orderPlaced, of: order, at: .at(5), existing: [])
        #expect(placed.inserted.map(\.ticketId) == ["ord-1:grill", "ord-1:salad"] && placed.updated.isEmpty)
        let existing = [Self.ticket("grill", state: .pickedUp), Self.ticket("salad", state: .inProgress)]
        let cancelled = TicketBoard.changes(after: .orderCancelled, of: order, at: .at(9), existing: existing)
        #expect(cancelled.inserted.isEmpty && cancelled.updated.map(\.ticketId) == ["ord-1:salad"] && cancelled.updated[0].state == .cancelled)
        #expect(TicketBoard.changes(after: .orderPreparing, of: order, at: .at(9), existing: existing) == TicketChanges())
    }

    @Test("rush marks every ticket of the order; an order the kitchen does not have is refused")
    func rush() throws {
        let rushed = try TicketBoard.rushed([Self.ticket("grill"), Self.ticket("salad")], orderId: "ord-1", rush: true)
        #expect(rushed.allSatisfy(\.rush) && rushed.count == 2)
        #expect(errorCode { () throws(ServiceError) in try TicketBoard.rushed([], orderId: "ord-9", rush: true) } == "kitchen.unknownOrder")
    }

    @Test("ids are 1 to 200 printable characters", arguments: [
        ("ord-1:grill", true), ("", false), (String(repeating: "a", count: 200), true), (String(repeating: "a", count: 201), false), ("ord\n1", false),
    ])
    func ids(id: String, valid: Bool) {
        #expect((errorCode { () throws(ServiceError) in try TicketBoard.checkId(id, "ticketId") } == nil) == valid)
    }

    @Test("views filter by café and station, hide what is done unless asked, and count only open tickets")
    func views() {
        let tickets = [Self.ticket("grill"), Self.ticket("salad", state: .ready), Self.ticket("grill", order: "ord-2", cafe: "other", created: 10)]
        let now = Timestamp.at(100)
        #expect(KitchenViews.tickets(tickets, query: TicketsQuery(), at: now, settings: Self.settings).map(\.ticketId) == ["ord-1:grill", "ord-2:grill"])
        #expect(KitchenViews.tickets(tickets, query: TicketsQuery(cafeId: "caffe-macs", includeDone: true), at: now, settings: Self.settings)
            .map(\.ticketId) == ["ord-1:grill", "ord-1:salad"])
        #expect(KitchenViews.tickets(tickets, query: TicketsQuery(station: "grill"), at: now, settings: Self.settings).map(\.ageSeconds) == [100, 90])
        #expect(KitchenViews.orders(tickets, query: OrdersQuery(cafeId: "other"), at: now, settings: Self.settings).map(\.orderId) == ["ord-2"])
        #expect(KitchenViews.counts(tickets, query: CountsQuery(cafeId: "caffe-macs")) == [ItemCount(name: "Fries", station: "grill", quantity: 2)])
        #expect(KitchenViews.screenCutoff(at: now, settings: Self.settings) == .at(40))
    }
}
