import KitchenCore
import Messages
import Testing

@Suite("Kitchen ticket board")
struct TicketBoardTests {
    static func line(_ item: String, _ name: String, station: String, quantity: Int = 1, modifiers: [String] = []) -> OrderLine {
        OrderLine(itemId: item, name: name, quantity: quantity, modifiers: modifiers, station: station, unitPrice: 100, lineTotal: Int64(100 * quantity))
    }

    static func order(_ id: String = "ord-1", lines: [OrderLine], customerHere: Bool = false, pickup: Double = 600) -> OrderSnapshot {
        OrderSnapshot(orderId: id, cafeId: "caffe-macs", cafeName: "Caffè Macs", timeZone: "America/Los_Angeles", currency: "USD",
                      channel: .app, userId: "u1", deviceId: "phone-1", state: .accepted, lines: lines,
                      total: lines.reduce(0) { $0 + $1.lineTotal }, pickupStart: .at(pickup), pickupEnd: .at(pickup + 600),
                      placedAt: t0, customerHere: customerHere)
    }

    static let twoStations = order(lines: [
        line("burger", "Grass-fed burger", station: "grill", quantity: 2, modifiers: ["Add cheese"]),
        line("caesar", "Caesar salad", station: "salad"),
        line("fries", "Fries", station: "grill", quantity: 3),
    ])

    @Test("an order with lines at two stations becomes two tickets, each with its own lines")
    func ticketsPerStation() {
        let tickets = TicketBoard.tickets(for: Self.twoStations, at: .at(5))
        #expect(tickets.map(\.ticketId) == ["ord-1:grill", "ord-1:salad"])
        #expect(tickets.map(\.station) == ["grill", "salad"])
        #expect(tickets[0].lines == [TicketLine(name: "Grass-fed burger", quantity: 2, modifiers: ["Add cheese"], itemId: "burger"),
                                     TicketLine(name: "Fries", quantity: 3, modifiers: [], itemId: "fries")])
        #expect(tickets[1].lines == [TicketLine(name: "Caesar salad", quantity: 1, modifiers: [], itemId: "caesar")])
        for ticket in tickets {
            #expect(ticket.state == .new)
            #expect(ticket.orderId == "ord-1" && ticket.cafeId == "caffe-macs")
            #expect(ticket.pickupStart == .at(600) && ticket.createdAt == .at(5) && !ticket.customerHere)
        }
    }

    @Test("the same order twice gives the same ticket ids, so a replay never doubles a ticket")
    func deterministicIDs() {
        let first = TicketBoard.tickets(for: Self.twoStations, at: .at(5))
        let replay = TicketBoard.tickets(for: Self.twoStations, at: .at(90))
        #expect(first.map(\.ticketId) == replay.map(\.ticketId))
        #expect(first.map(\.lines) == replay.map(\.lines))
    }

    @Test("one station, one ticket")
    func oneStation() {
        let tickets = TicketBoard.tickets(for: Self.order(lines: [Self.line("fries", "Fries", station: "grill")]), at: t0)
        #expect(tickets.map(\.ticketId) == ["ord-1:grill"])
    }

    @Test("start, bump and recall: legal moves and refusals", arguments: [
        (TicketBoard.Command.start, TicketState.new, TicketState.inProgress as TicketState?),
        (.start, .inProgress, nil),
        (.start, .ready, nil),
        (.start, .pickedUp, nil),
        (.start, .cancelled, nil),
        (.bump, .new, .ready),
        (.bump, .inProgress, .ready),
        (.bump, .ready, nil),
        (.bump, .pickedUp, nil),
        (.bump, .cancelled, nil),
        (.recall, .ready, .inProgress),
        (.recall, .new, nil),
        (.recall, .inProgress, nil),
        (.recall, .pickedUp, nil),
        (.recall, .cancelled, nil),
        (.recall, .noShow, nil),
        (.start, .noShow, nil),
        (.bump, .noShow, nil),
    ])
    func transitions(command: TicketBoard.Command, from: TicketState, to: TicketState?) {
        do {
            let next = try TicketBoard.apply(command, to: from)
            #expect(next == to, "\(command) \(from)")
        } catch {
            #expect(to == nil, "\(command) \(from) refused: \(error)")
            #expect(error.code == "kitchen.illegalTransition")
        }
    }

    @Test("an order is ready only when every one of its station tickets is bumped", arguments: [
        ([TicketState](), false),
        ([.new], false),
        ([.ready, .new], false),
        ([.ready, .inProgress], false),
        ([.ready, .cancelled], false),
        ([.ready], true),
        ([.ready, .ready], true),
        ([.ready, .pickedUp], true),
    ])
    func orderReady(states: [TicketState], ready: Bool) {
        var tickets = TicketBoard.tickets(for: Self.twoStations, at: t0)
        tickets = states.enumerated().map { index, state in
            var ticket = tickets[index % tickets.count]
            ticket.ticketId += "#\(index)"
            ticket.state = state
            return ticket
        }
        #expect(TicketBoard.orderReady(tickets) == ready)
    }

    @Test("bumping each station in turn makes the order ready at the last bump")
    func bumpAll() throws {
        var tickets = TicketBoard.tickets(for: Self.twoStations, at: t0)
        tickets[0].state = try TicketBoard.apply(.start, to: tickets[0].state)
        tickets[0].state = try TicketBoard.apply(.bump, to: tickets[0].state)
        #expect(!TicketBoard.orderReady(tickets))
        tickets[1].state = try TicketBoard.apply(.bump, to: tickets[1].state)
        #expect(TicketBoard.orderReady(tickets))
    }

    @Test("screen order: customer here first, then pickup time, then oldest first")
    func sortOrder() {
        func ticket(_ id: String, here: Bool, pickup: Double, created: Double) -> Ticket {
            Ticket(ticketId: id, orderId: id, cafeId: "caffe-macs", station: "grill", state: .new, lines: [],
                   pickupStart: .at(pickup), customerHere: here, createdAt: .at(created))
        }
        let tickets = [
            ticket("window-1200-age-0", here: false, pickup: 1200, created: 0),
            ticket("here-late-window", here: true, pickup: 1800, created: 100),
            ticket("early-window", here: false, pickup: 600, created: 300),
            ticket("window-1200-newest", here: false, pickup: 1200, created: 50),
            ticket("window-1200-oldest", here: false, pickup: 1200, created: -50),
            ticket("here-early-window", here: true, pickup: 600, created: 200),
        ]
        let expected = ["here-early-window", "here-late-window", "early-window", "window-1200-oldest", "window-1200-age-0", "window-1200-newest"]
        #expect(TicketBoard.sorted(tickets, at: t0).map(\.ticketId) == expected)
        #expect(TicketBoard.sorted(tickets.reversed(), at: t0).map(\.ticketId) == expected)
    }

    @Test("identical tickets sort by id, so the screen never reshuffles")
    func sortTieBreak() {
        let base = TicketBoard.tickets(for: Self.twoStations, at: t0)
        #expect(TicketBoard.sorted(base.reversed(), at: t0).map(\.ticketId) == ["ord-1:grill", "ord-1:salad"])
    }

    @Test("a station ticket carries the order's identity, pickup time and that station's lines")
    func ticketFields() {
        let ticket = TicketBoard.tickets(for: Self.twoStations, at: t0)[1]
        #expect(ticket == TicketView(ticketId: "ord-1:salad", orderId: "ord-1", cafeId: "caffe-macs", station: "salad", state: .new,
                                          lines: [TicketLine(name: "Caesar salad", quantity: 1, modifiers: [], itemId: "caesar")],
                                          pickupStart: .at(600), customerHere: false, createdAt: t0, prepSeconds: 0))
    }
}
