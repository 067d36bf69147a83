import Foundation
import KitchenCore
import Messages
import Policy
import ServiceRuntime

/// The shell of kitchen-display: tickets in its own SQLite file (`KitchenStore`), built from order
/// events, changed by chef commands, each change written with its kitchen events in one
/// transaction. The rules, and what each change announces, come from KitchenCore.
///
/// The command socket and the terminal screen call the same functions here (the screen sends its
/// requests through the same router), so a key press and `cafectl kds ...` cannot differ.
public final class KitchenService {
    let clock: any WallClock
    let requests: RequestServer
    let bus: BusSubscription
    let events: EventWriter
    let settings: KitchenSettings
    let store: KitchenStore
    let links: LinkWatcher

    /// The service on `host`, not yet consuming or answering: call `start()`.
    public init(host: ServiceHost, settings: KitchenSettings) {
        clock = host.clock
        requests = host.requests
        bus = host.bus
        events = host.events
        self.settings = settings
        store = KitchenStore(db: host.db)
        links = LinkWatcher(clock: host.clock, bus: host.bus, settings: settings)
    }

    /// Migrates the store, subscribes to order events, registers the `kds.*` ops, health and pruning.
    public func start() throws {
        try store.migrate()
        try bus.subscribe(["order."], durableStreams: ["order"]) { [unowned self] _, envelope in try self.consume(envelope) }
        links.start()
        let router = requests.router
        // Each op answers as the caller its connection proved: a kitchen only at its café (KitchenScope).
        router.on(Op.kdsTickets, TicketsQuery.self) { [unowned self] body, caller in try self.tickets(body, as: caller) }
        router.on(Op.kdsOrders, OrdersQuery.self) { [unowned self] body, caller in try self.orders(body, as: caller) }
        router.on(Op.kdsCounts, CountsQuery.self) { [unowned self] body, caller in try self.counts(body, as: caller) }
        router.on(Op.kdsStart, TicketCommand.self) { [unowned self] body, caller in try self.command(.start, body.ticketId, as: caller) }
        router.on(Op.kdsBump, TicketCommand.self) { [unowned self] body, caller in try self.command(.bump, body.ticketId, as: caller) }
        router.on(Op.kdsRecall, TicketCommand.self) { [unowned self] body, caller in try self.command(.recall, body.ticketId, as: caller) }
        router.on(Op.kdsRush, RushCommand.self) { [unowned self] body, caller in try self.rush(body, as: caller) }
        requests.addHealthDetails { [unowned self] in
            let link = self.links.status()
            return ["tickets.open": "\((try? self.store.openCount()) ?? -1)", "link.bus": link.bus.rawValue, "link.orderService": link.orderService.rawValue]
        }
    }

    /// Applies one order event inside the follower's transaction. The follower has already
    /// skipped an event id seen before, so a replay or a publisher's re-send never doubles a ticket.
    /// The order's target ready time (and so each ticket's fire time) moves with it
    /// (`Pacing`), announced as `kitchen.paced` in the same transaction.
    func consume(_ envelope: Envelope) throws {
        guard case .order(let event) = envelope.body else { return }
        let now = clock.now()
        let placed = envelope.type == .orderPlaced
        let existing = placed ? [] : try store.tickets(ofOrder: event.order.orderId)
        let changes = TicketBoard.changes(after: envelope.type, of: event.order, at: event.at, existing: existing)
        // The order's tickets as the event left them, then paced.
        var current = placed ? changes.inserted : existing.map { ticket in changes.updated.first { $0.ticketId == ticket.ticketId } ?? ticket }
        var changed = Set(changes.updated.map(\.ticketId))
        if let paced = Pacing.paced(after: envelope.type, order: event.order, tickets: current, at: event.at) {
            current = paced.tickets
            changed.formUnion(current.map(\.ticketId))
            try events.emit(.kitchenPaced, topic: Topic.kitchen(event: "paced", cafe: paced.pacing.cafeId), stream: "kitchen", .paced(paced.pacing))
        }
        for ticket in current {
            if placed { try store.insert(ticket, at: now) } else if changed.contains(ticket.ticketId) { try store.update(ticket, at: now) }
        }
    }

    /// Start, bump or recall one ticket, with its kitchen events in the same transaction; a
    /// kitchen only a ticket at its café.
    func command(_ command: TicketBoard.Command, _ ticketId: String, as caller: Caller) throws -> TicketView {
        try TicketBoard.checkId(ticketId, "ticketId")
        // A ticket not here yet may be in an order event waiting on the bus socket (the order
        // answered to its customer and published at once; the chef's screen, or a client as quick,
        // asks before this turn reached the event): take what waits there first.
        if try !store.hasTicket(ticketId) { try bus.consumer?.applyQueued() }
        return try events.write {
            let ticket = try store.ticket(ticketId)
            try KitchenScope.requireReach(ticket.map { [$0] } ?? [], caller: caller, to: "\(command.rawValue) ticket \(Quoting.quoted(ticketId))", noun: "ticket")
            let orderTickets = try ticket.map { try store.tickets(ofOrder: $0.orderId) } ?? []
            let now = clock.now()
            let outcome = try TicketBoard.perform(command, ticketId: ticketId, orderTickets: orderTickets, at: now, settings: settings)
            try store.update(outcome.ticket, at: now)
            for announcement in outcome.announcements {
                try events.emit(announcement.type, topic: announcement.topic, stream: "kitchen", .kitchen(announcement.event))
            }
            return TicketTimer.timed(outcome.ticket, at: now, settings: settings)
        }
    }

    /// Puts every ticket of an order ahead of the queue (or back in line); a kitchen only an
    /// order at its café.
    func rush(_ request: RushCommand, as caller: Caller) throws -> ExpediterOrder {
        try TicketBoard.checkId(request.orderId, "orderId")
        return try events.write {
            let now = clock.now()
            let tickets = try store.tickets(ofOrder: request.orderId)
            try KitchenScope.requireReach(tickets, caller: caller, to: "rush order \(Quoting.quoted(request.orderId))", noun: "order")
            let changed = try TicketBoard.rushed(tickets, orderId: request.orderId, rush: request.rush)
            for ticket in changed { try store.update(ticket, at: now) }
            return Expediter.orders(changed, at: now, settings: settings)[0]
        }
    }

    // MARK: Views

    /// `kds.tickets`: the station screens (a kitchen's café unless it names its own).
    func tickets(_ query: TicketsQuery, as caller: Caller) throws -> TicketsReply {
        var query = query
        query.cafeId = try KitchenScope.viewCafe(query.cafeId, caller: caller)
        let now = clock.now()
        return TicketsReply(tickets: KitchenViews.tickets(try load(includeDone: query.includeDone, at: now), query: query, at: now, settings: settings),
                            link: links.status())
    }

    /// `kds.orders`: the expediter's orders (a kitchen's café unless it names its own).
    func orders(_ query: OrdersQuery, as caller: Caller) throws -> OrdersReply {
        var query = query
        query.cafeId = try KitchenScope.viewCafe(query.cafeId, caller: caller)
        let now = clock.now()
        return OrdersReply(orders: KitchenViews.orders(try load(includeDone: query.includeDone, at: now), query: query, at: now, settings: settings),
                           link: links.status())
    }

    /// `kds.counts`: all-day counts of what is still to make (a kitchen's café unless it names its own).
    func counts(_ query: CountsQuery, as caller: Caller) throws -> CountsReply {
        var query = query
        query.cafeId = try KitchenScope.viewCafe(query.cafeId, caller: caller)
        return CountsReply(counts: KitchenViews.counts(try store.current(closedSince: clock.now()), query: query), link: links.status())
    }

    /// Every ticket for a query with `includeDone`, else only those a screen may still show.
    private func load(includeDone: Bool?, at now: Timestamp) throws -> [Ticket] {
        includeDone == true ? try store.all() : try store.current(closedSince: KitchenViews.screenCutoff(at: now, settings: settings))
    }
}
