import Foundation
import KitchenCore
import Messages
import SQLite
import ServiceRuntime

/// The shell of kitchen-display: tickets in its own SQLite file, built from order events, changed
/// by chef commands, each change written with its kitchen event in one transaction.
///
/// The command socket and the terminal screen call the same functions here (the screen sends its
/// requests through the same router), so a key press and `cafectl kds ...` cannot differ.
final class KitchenService {
    let host: ServiceHost
    let settings: KitchenSettings
    private var db: Database { host.db }
    private var store: TicketStore { TicketStore(db: host.db) }
    private let links: LinkWatcher

    init(host: ServiceHost, settings: KitchenSettings) {
        self.host = host
        self.settings = settings
        links = LinkWatcher(host: host, settings: settings)
    }

    func start() throws {
        try db.migrate("kitchen-display", TicketStore.migrations)
        try host.subscribe(["order."], durableStreams: ["order"]) { [unowned self] _, envelope in try self.consume(envelope) }
        links.start()
        let router = host.router
        router.on(Op.kdsTickets, TicketsQuery.self) { [unowned self] in try self.tickets($0) }
        router.on(Op.kdsOrders, OrdersQuery.self) { [unowned self] in try self.orders($0) }
        router.on(Op.kdsCounts, CountsQuery.self) { [unowned self] in try self.counts($0) }
        router.on(Op.kdsStart, TicketCommand.self) { [unowned self] in try self.command(.start, $0.ticketId) }
        router.on(Op.kdsBump, TicketCommand.self) { [unowned self] in try self.command(.bump, $0.ticketId) }
        router.on(Op.kdsRecall, TicketCommand.self) { [unowned self] in try self.command(.recall, $0.ticketId) }
        router.on(Op.kdsRush, RushCommand.self) { [unowned self] in try self.rush($0) }
        host.addHealthDetails { [unowned self] in
            let link = self.links.status()
            return ["tickets.open": "\((try? self.store.openCount()) ?? -1)", "link.bus": link.bus.rawValue, "link.orderService": link.orderService.rawValue]
        }
        host.reactor.every(3600, name: "seen.prune") { [unowned self] in
            try self.store.pruneSeen(before: self.host.clock.now().adding(seconds: -8 * 24 * 3600))
        }
    }

    // MARK: Order events

    /// Applies one order event inside the follower's transaction. An event id seen before changes
    /// nothing, so a replay after a restart or a publisher's re-send never doubles a ticket.
    private func consume(_ envelope: Envelope) throws {
        guard case .order(let event) = envelope.body else { return }
        let now = host.clock.now()
        guard try store.firstSighting(of: envelope.id, at: now) else { return }
        let order = event.order
        if envelope.type == .orderPlaced {
            for ticket in TicketBoard.tickets(for: order, at: event.at) { try store.insert(ticket, at: now) }
            return
        }
        for ticket in try store.tickets(ofOrder: order.orderId) {
            let next = TicketBoard.reacting(to: envelope.type, ticket, at: event.at)
            if next != ticket { try store.update(next, at: now) }
        }
    }

    // MARK: Commands

    /// Start, bump or recall one ticket, with its kitchen event in the same transaction.
    func command(_ command: TicketBoard.Command, _ ticketId: String) throws -> TicketView {
        try Self.checkId(ticketId, "ticketId")
        return try host.write {
            guard let ticket = try store.ticket(ticketId) else {
                throw ServiceError(.unknownTicket, "no ticket \(ticketId)")
            }
            let now = host.clock.now()
            let next = try TicketBoard.apply(command, to: ticket, at: now, settings: settings)
            try store.update(next, at: now)
            let event = KitchenEvent(orderId: next.orderId, cafeId: next.cafeId, ticketId: next.ticketId, station: next.station, at: now)
            switch command {
            case .start:
                try emit(.kitchenStarted, "started", event)
            case .recall:
                try emit(.kitchenRecalled, "recalled", event)
            case .bump:
                try emit(.kitchenBumped, "bumped", event)
                if TicketBoard.orderReady(try store.tickets(ofOrder: next.orderId)) {
                    try emit(.kitchenReady, "ready", KitchenEvent(orderId: next.orderId, cafeId: next.cafeId, ticketId: nil, station: nil, at: now))
                }
            }
            return TicketTimer.timed(next, at: now, settings: settings)
        }
    }

    /// Puts every ticket of an order ahead of the queue (or back in line).
    func rush(_ request: RushCommand) throws -> ExpediterOrder {
        try Self.checkId(request.orderId, "orderId")
        return try host.write {
            let tickets = try store.tickets(ofOrder: request.orderId)
            guard !tickets.isEmpty else { throw ServiceError(.kitchenUnknownOrder, "the kitchen has no ticket of order \(request.orderId)") }
            let now = host.clock.now()
            let changed = tickets.map { ticket -> Ticket in
                var next = ticket
                next.rush = request.rush
                return next
            }
            for ticket in changed { try store.update(ticket, at: now) }
            return Expediter.orders(changed, at: now, settings: settings)[0]
        }
    }

    private func emit(_ type: EventType, _ name: String, _ event: KitchenEvent) throws {
        try host.emit(type, topic: Topic.kitchen(event: name, cafe: event.cafeId), stream: "kitchen", .kitchen(event))
    }

    /// Ids are order ids and "<order>:<station>": printable, bounded.
    static func checkId(_ id: String, _ field: String) throws {
        guard !id.isEmpty, id.utf8.count <= 200, !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ServiceError(.invalidField, "body.\(field) must be 1 to 200 printable characters")
        }
    }

    // MARK: Views

    func tickets(_ query: TicketsQuery) throws -> TicketsReply {
        let now = host.clock.now()
        var tickets = query.includeDone == true ? try store.all() : try store.current(closedSince: now.adding(seconds: -settings.cancelledLingerSeconds))
        tickets = tickets.filter { (query.cafeId == nil || $0.cafeId == query.cafeId) && (query.station == nil || $0.station == query.station) }
        if query.includeDone != true { tickets = tickets.filter { TicketBoard.onStationScreen($0, at: now, settings: settings) } }
        return TicketsReply(tickets: TicketBoard.sorted(tickets).map { TicketTimer.timed($0, at: now, settings: settings) }, link: links.status())
    }

    func orders(_ query: OrdersQuery) throws -> OrdersReply {
        let now = host.clock.now()
        let tickets = (query.includeDone == true ? try store.all() : try store.current(closedSince: now.adding(seconds: -settings.cancelledLingerSeconds)))
            .filter { query.cafeId == nil || $0.cafeId == query.cafeId }
        var orders = Expediter.orders(tickets, at: now, settings: settings)
        if query.includeDone != true { orders = orders.filter { Expediter.onScreen($0, at: now, settings: settings) } }
        return OrdersReply(orders: orders, link: links.status())
    }

    func counts(_ query: CountsQuery) throws -> CountsReply {
        let tickets = try store.current(closedSince: host.clock.now())
            .filter { (query.cafeId == nil || $0.cafeId == query.cafeId) && (query.station == nil || $0.station == query.station) }
        return CountsReply(counts: AllDayCounts.counts(tickets), link: links.status())
    }
}
