import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// kitchen-display as real processes with the real order-service: station tickets, recall,
/// rush, the expediter, all-day counts, typed refusals, restart after SIGKILL, and the link status.
@Suite(.serialized)
struct KitchenDisplayTests {
    /// Places a Caffè Macs order made at two stations (grill: burger, salad: caesar); returns its id.
    static func placeTwoStationOrder(_ orders: RequestClient, key: String) throws -> String {
        let windows = try orders.call(Op.windowsList, WindowsRequest(cafeId: "caffe-macs", locale: "en_US"), as: WindowsReply.self)
        let window = try #require(windows.windows.first { $0.remaining > 0 })
        let reservation = try orders.call(Op.windowReserve, ReserveRequest(cafeId: "caffe-macs", start: window.start, userId: nil, locale: "en_US"), as: ReservationView.self)
        return try orders.call(Op.orderPlace, PlaceOrderRequest(
            idempotencyKey: key, channel: .kiosk, userId: nil, deviceId: nil, cafeId: "caffe-macs", reservationId: reservation.reservationId,
            items: [OrderItemRequest(itemId: "burger", quantity: 2, modifiers: ["cheese"]), OrderItemRequest(itemId: "caesar", quantity: 1)],
            paymentToken: nil, locale: "en_US"), as: OrderView.self).order.orderId
    }

    @Test("an order's station tickets: start, bump, recall within the window, rush, expediter and all-day counts; order-service follows")
    func lifecycle() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["kitchen."], probe: platform.busPub)
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"), timeoutMilliseconds: 3_000)
        let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"), timeoutMilliseconds: 3_000)
        defer { [orders, kitchen].forEach { $0.close() }; watcher.close() }

        let first = try Self.placeTwoStationOrder(orders, key: "kds-life-1")
        let second = try Self.placeTwoStationOrder(orders, key: "kds-life-2")
        let grill = "\(first):grill", salad = "\(first):salad"
        let tickets = try eventually("both orders' tickets on the screen") {
            let reply = try kitchen.call(Op.kdsTickets, TicketsQuery(cafeId: "caffe-macs"), as: TicketsReply.self)
            return reply.tickets.count == 4 ? reply : nil
        }
        #expect(Set(tickets.tickets.map(\.ticketId)) == [grill, salad, "\(second):grill", "\(second):salad"])
        #expect(tickets.tickets.allSatisfy { $0.state == .new && $0.colour == .green && $0.ageSeconds != nil })
        let linkUp = try eventually("links up") {
            let link = try kitchen.call(Op.kdsTickets, TicketsQuery(), as: TicketsReply.self).link
            return link.bus == .up && link.orderService == .up ? link : nil
        }
        #expect(linkUp.message.isEmpty)

        // Routed by station: the grill sees only grill tickets, with that station's lines.
        let grillView = try kitchen.call(Op.kdsTickets, TicketsQuery(station: "grill"), as: TicketsReply.self).tickets
        #expect(grillView.map(\.station) == ["grill", "grill"])
        #expect(grillView.first { $0.ticketId == grill }?.lines.map(\.quantity) == [2])
        let counts = try kitchen.call(Op.kdsCounts, CountsQuery(station: "grill"), as: CountsReply.self).counts
        #expect(counts.count == 1 && counts.first?.quantity == 4, "all day: two burgers on each of two tickets: \(counts)")

        // Rush puts the second order first, on the station screen and for the expediter.
        let rushed = try kitchen.call(Op.kdsRush, RushCommand(orderId: second), as: ExpediterOrder.self)
        #expect(rushed.rush && rushed.tickets.count == 2)
        #expect(try kitchen.call(Op.kdsTickets, TicketsQuery(station: "grill"), as: TicketsReply.self).tickets.first?.orderId == second)
        #expect(try kitchen.call(Op.kdsOrders, OrdersQuery(), as: OrdersReply.self).orders.map(\.orderId) == [second, first])

        // Start the grill: order-service moves the order to preparing.
        #expect(try kitchen.call(Op.kdsStart, TicketCommand(ticketId: grill), as: TicketView.self).state == .inProgress)
        _ = try eventually("order preparing") {
            try orders.call(Op.orderGet, OrderQuery(orderId: first), as: OrderView.self).order.state == .preparing ? true : nil
        }
        // Bump the grill, recall it (within the window), bump it again: still not ready, the salad is open.
        #expect(try kitchen.call(Op.kdsBump, TicketCommand(ticketId: grill), as: TicketView.self).state == .ready)
        #expect(try kitchen.call(Op.kdsTickets, TicketsQuery(station: "grill"), as: TicketsReply.self).tickets.map(\.ticketId) == ["\(second):grill"],
                "a bumped ticket leaves the station screen")
        let recalled = try kitchen.call(Op.kdsRecall, TicketCommand(ticketId: grill), as: TicketView.self)
        #expect(recalled.state == .inProgress && recalled.bumpedAt == nil)
        #expect(try kitchen.call(Op.kdsTickets, TicketsQuery(station: "grill"), as: TicketsReply.self).tickets.contains { $0.ticketId == grill })
        _ = try kitchen.call(Op.kdsBump, TicketCommand(ticketId: grill), as: TicketView.self)
        #expect(try kitchen.call(Op.kdsOrders, OrdersQuery(), as: OrdersReply.self).orders.first { $0.orderId == first }?.state == .inProgress)

        // Refusals answer a typed code and change nothing.
        #expect(errorCode { try kitchen.call(Op.kdsBump, TicketCommand(ticketId: "\(first):pastry"), as: TicketView.self) } == "kitchen.unknownTicket")
        #expect(errorCode { try kitchen.call(Op.kdsRecall, TicketCommand(ticketId: salad), as: TicketView.self) } == "kitchen.illegalTransition")
        #expect(errorCode { try kitchen.call(Op.kdsStart, TicketCommand(ticketId: grill), as: TicketView.self) } == "kitchen.illegalTransition")
        #expect(errorCode { try kitchen.call(Op.kdsRush, RushCommand(orderId: "no-such-order"), as: ExpediterOrder.self) } == "kitchen.unknownOrder")
        #expect(errorCode { try kitchen.call(Op.kdsBump, TicketCommand(ticketId: ""), as: TicketView.self) } == "request.invalidField")
        let unchanged = try kitchen.call(Op.kdsTickets, TicketsQuery(includeDone: true), as: TicketsReply.self).tickets.filter { $0.orderId == first }
        #expect(unchanged.map(\.state) == [.ready, .new], "grill bumped, salad untouched: \(unchanged.map(\.ticketId))")

        // The last station's bump makes the order ready, once, at order-service too.
        _ = try kitchen.call(Op.kdsBump, TicketCommand(ticketId: salad), as: TicketView.self)
        _ = try eventually("order ready at order-service") {
            try orders.call(Op.orderGet, OrderQuery(orderId: first), as: OrderView.self).order.state == .ready ? true : nil
        }
        let expediter = try kitchen.call(Op.kdsOrders, OrdersQuery(), as: OrdersReply.self).orders
        #expect(expediter.first { $0.orderId == first }?.state == .ready, "the expediter keeps a ready order until it is picked up")
        try watcher.pump()
        let kinds = watcher.all("kitchen.").compactMap { message -> String? in
            guard case .kitchen(let event) = message.envelope.body, event.orderId == first else { return nil }
            return message.envelope.type.rawValue
        }
        #expect(kinds == ["kitchen.started", "kitchen.bumped", "kitchen.recalled", "kitchen.bumped", "kitchen.bumped", "kitchen.ready"])
        #expect(try kitchen.call(Op.kdsCounts, CountsQuery(station: "grill"), as: CountsReply.self).counts.first?.quantity == 2)
    }

    @Test("kill -9 of kitchen-display: the queue comes back with nothing lost or doubled; a lost link shows instead of an empty queue")
    func restartAndLinks() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"), timeoutMilliseconds: 3_000)
        let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"), timeoutMilliseconds: 3_000)
        defer { [orders, kitchen].forEach { $0.close() } }

        let first = try Self.placeTwoStationOrder(orders, key: "kds-restart-1")
        let second = try Self.placeTwoStationOrder(orders, key: "kds-restart-2")
        _ = try eventually("four tickets") { try kitchen.call(Op.kdsTickets, TicketsQuery(), as: TicketsReply.self).tickets.count == 4 ? true : nil }
        _ = try kitchen.call(Op.kdsStart, TicketCommand(ticketId: "\(first):grill"), as: TicketView.self)
        _ = try kitchen.call(Op.kdsBump, TicketCommand(ticketId: "\(first):salad"), as: TicketView.self)
        _ = try kitchen.call(Op.kdsRush, RushCommand(orderId: second), as: ExpediterOrder.self)
        let before = try kitchen.call(Op.kdsTickets, TicketsQuery(includeDone: true), as: TicketsReply.self).tickets

        // SIGKILL; an order arrives while the kitchen is down; restart.
        platform.kill9("kitchen-display")
        let third = try Self.placeTwoStationOrder(orders, key: "kds-restart-3")
        try platform.start("kitchen-display")
        kitchen.reset()
        try platform.waitHealthy("kitchen-display")
        let after = try eventually("the order placed while down is on the screen") {
            let tickets = try kitchen.call(Op.kdsTickets, TicketsQuery(includeDone: true), as: TicketsReply.self).tickets
            return tickets.contains { $0.orderId == third } ? tickets : nil
        }
        #expect(after.count == 6 && Set(after.map(\.ticketId)).count == 6, "no ticket lost or doubled: \(after.map(\.ticketId))")
        for old in before {
            let now = try #require(after.first { $0.ticketId == old.ticketId })
            #expect(now.state == old.state && now.rush == old.rush && now.createdAt == old.createdAt && now.bumpedAt == old.bumpedAt, "\(old.ticketId)")
        }
        // The earlier bump is still recallable, and the rest of the flow goes on.
        #expect(try kitchen.call(Op.kdsRecall, TicketCommand(ticketId: "\(first):salad"), as: TicketView.self).state == .inProgress)
        // Kill it again right after a bump: order-service still sees the order ready exactly once.
        _ = try kitchen.call(Op.kdsBump, TicketCommand(ticketId: "\(third):grill"), as: TicketView.self)
        _ = try kitchen.call(Op.kdsBump, TicketCommand(ticketId: "\(third):salad"), as: TicketView.self)
        platform.kill9("kitchen-display")
        try platform.start("kitchen-display")
        kitchen.reset()
        _ = try eventually("order ready at order-service after the kitchen's restart") {
            try orders.call(Op.orderGet, OrderQuery(orderId: third), as: OrderView.self).order.state == .ready ? true : nil
        }
        #expect(try kitchen.call(Op.kdsTickets, TicketsQuery(includeDone: true), as: TicketsReply.self).tickets.count == 6)

        // order-service dies: the queue stays, and says the link is down.
        _ = try eventually("links up after the restart") {
            let link = try kitchen.call(Op.kdsTickets, TicketsQuery(), as: TicketsReply.self).link
            return link.bus == .up && link.orderService == .up ? true : nil
        }
        platform.kill9("order-service")
        let down = try eventually("order-service shown down") {
            let reply = try kitchen.call(Op.kdsTickets, TicketsQuery(), as: TicketsReply.self)
            return reply.link.orderService == .down ? reply : nil
        }
        #expect(!down.tickets.isEmpty && down.link.bus == .up && down.link.message.contains("ORDER-SERVICE"))
        try platform.start("order-service")
        _ = try eventually("order-service back up") {
            try kitchen.call(Op.kdsTickets, TicketsQuery(), as: TicketsReply.self).link.orderService == .up ? true : nil
        }
        // The bus dies: both links show down.
        platform.kill9("bus")
        let busDown = try eventually("bus shown down") {
            let link = try kitchen.call(Op.kdsTickets, TicketsQuery(), as: TicketsReply.self).link
            return link.bus == .down ? link : nil
        }
        #expect(busDown.orderService == .down && busDown.message.contains("BUS"))
        try platform.start("bus")
        _ = try eventually("bus back up", timeout: 15) {
            let link = try kitchen.call(Op.kdsTickets, TicketsQuery(), as: TicketsReply.self).link
            return link.bus == .up && link.orderService == .up ? true : nil
        }
    }

    @Test("an order event seen again under a new seq changes nothing; an order cancelled through order-service stays on screen, marked, with nothing to bump")
    func dedupeAndCancel() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"), timeoutMilliseconds: 3_000)
        let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"), timeoutMilliseconds: 3_000)
        let publisher = try platform.busPublisher(context)
        defer { [orders, kitchen].forEach { $0.close() }; publisher.close() }
        let kept = try Self.placeTwoStationOrder(orders, key: "kds-dedupe-1")
        let cancelled = try Self.placeTwoStationOrder(orders, key: "kds-dedupe-2")
        _ = try eventually("four tickets") { try kitchen.call(Op.kdsTickets, TicketsQuery(), as: TicketsReply.self).tickets.count == 4 ? true : nil }
        let snapshot = try orders.call(Op.orderGet, OrderQuery(orderId: kept), as: OrderView.self).order

        // A second publisher of the order stream (a replica, say) sends order events the kitchen
        // must apply once, whatever seq they come under. Each is re-sent until it shows: the bus
        // may still be joining the new publisher, and a repeat of one seq is dropped as a duplicate.
        func publish(_ type: EventType, _ order: OrderSnapshot, id: String, seq: UInt64, until done: () throws -> Bool) throws {
            let envelope = Envelope(type: type, id: id, source: "order-service-replica", stream: "order", seq: seq, time: Timestamp(Date()),
                                    body: .order(OrderEvent(order: order, previous: nil, reason: "test", at: Timestamp(Date()))))
            let topic = Topic.order(state: String(type.rawValue.dropFirst("order.".count)), cafe: order.cafeId)
            _ = try eventually("\(type.rawValue) seq \(seq) applied") {
                try publisher.send(multipart: [Data(topic.utf8), Wire.encode(envelope)])
                return try done() ? true : nil
            }
        }
        func state(_ ticketId: String) throws -> TicketView? {
            try kitchen.call(Op.kdsTickets, TicketsQuery(includeDone: true), as: TicketsReply.self).tickets.first { $0.ticketId == ticketId }
        }
        let readyId = UUID().uuidString.lowercased()
        try publish(.orderReady, snapshot, id: readyId, seq: 1) { try state("\(kept):grill")?.state == .ready }
        #expect(try kitchen.call(Op.kdsRecall, TicketCommand(ticketId: "\(kept):grill"), as: TicketView.self).state == .inProgress)
        // The same event again under seq 2, then a marker (seq 3) to know seq 2 went through first.
        try publish(.orderReady, snapshot, id: readyId, seq: 2) { true }
        try publish(.orderArrived, snapshot, id: UUID().uuidString.lowercased(), seq: 3) { try state("\(kept):grill")?.customerHere == true }
        #expect(try state("\(kept):grill")?.state == .inProgress, "the replayed order.ready did not undo the recall")

        // Cancelled by the kitchen through order-service: the tickets stay on the station screen and
        // for the expediter, marked, and cannot be bumped.
        _ = try orders.call(Op.orderCancel, CancelOrderRequest(orderId: cancelled, by: .kitchen, reason: "out of buns"), as: OrderView.self)
        _ = try eventually("order.cancelled reaches the kitchen") { try state("\(cancelled):grill")?.state == .cancelled ? true : nil }
        let screen = try kitchen.call(Op.kdsTickets, TicketsQuery(), as: TicketsReply.self).tickets.filter { $0.orderId == cancelled }
        #expect(screen.map(\.state) == [.cancelled, .cancelled] && screen.allSatisfy { $0.closedAt != nil })
        #expect(try kitchen.call(Op.kdsOrders, OrdersQuery(), as: OrdersReply.self).orders.first { $0.orderId == cancelled }?.state == .cancelled)
        #expect(errorCode { try kitchen.call(Op.kdsBump, TicketCommand(ticketId: "\(cancelled):salad"), as: TicketView.self) } == "kitchen.illegalTransition")
        #expect(try kitchen.call(Op.kdsCounts, CountsQuery(station: "grill"), as: CountsReply.self).counts.map(\.quantity) == [2],
                "only the kept order's recalled burgers are still to make, not the cancelled order's")
    }
}
