import Foundation
import KitchenCore
import Messages
import ServiceRuntime

/// The shell of kitchen-display: tickets in its own SQLite file (`KitchenStore`), built from order
/// events, changed by chef commands, each change written with its kitchen events in one
/// transaction. The rules, and what each change announces, come from KitchenCore.
///
/// The command socket and the terminal screen call the same functions here (the screen sends its
/// requests through the same router), so a key press and `cafectl kds ...` cannot differ.
public final class KitchenService {
    let host: ServiceHost
    let settings: KitchenSettings
    let store: KitchenStore
    let links: LinkWatcher

    /// The service on `host`, not yet consuming or answering: call `start()`.
    public init(host: ServiceHost, settings: KitchenSettings) {
        self.host = host
        self.settings = settings
        store = KitchenStore(db: host.db)
        links = LinkWatcher(host: host, settings: settings)
    }

    /// Migrates the store, subscribes to order events, registers the `kds.*` ops, health and pruning.
    public func start() throws {
        try store.migrate()
        try host.subscribe(["order."], durableStreams: ["order"]) { [unowned self] _, envelope in try self.consume(envelope) }
        links.start()
        let router = host.router
        router.on(Op.kdsTickets, TicketsQuery.self) { [unowned self] body, _ in try self.tickets(body) }
        router.on(Op.kdsOrders, OrdersQuery.self) { [unowned self] body, _ in try self.orders(body) }
        router.on(Op.kdsCounts, CountsQuery.self) { [unowned self] body, _ in try self.counts(body) }
        router.on(Op.kdsStart, TicketCommand.self) { [unowned self] body, _ in try self.command(.start, body.ticketId) }
        router.on(Op.kdsBump, TicketCommand.self) { [unowned self] body, _ in try self.command(.bump, body.ticketId) }
        router.on(Op.kdsRecall, TicketCommand.self) { [unowned self] body, _ in try self.command(.recall, body.ticketId) }
        router.on(Op.kdsRush, RushCommand.self) { [unowned self] body, _ in try self.rush(body) }
        host.addHealthDetails { [unowned self] in
            let link = self.links.status()
            return ["tickets.open": "\((try? self.store.openCount()) ?? -1)", "link.bus": link.bus.rawValue, "link.orderService": link.orderService.rawValue]
        }
    }

    /// Applies one order event inside the follower's transaction. The follower has already
    /// skipped an event id seen before, so a replay or a publisher's re-send never doubles a ticket.
    func consume(_ envelope: Envelope) throws {
        guard case .order(let event) = envelope.body else { return }
        let now = host.clock.now()
        let existing = envelope.type == .orderPlaced ? [] : try store.tickets(ofOrder: event.order.orderId)
        let changes = TicketBoard.changes(after: envelope.type, of: event.order, at: event.at, existing: existing)
        for ticket in changes.inserted { try store.insert(ticket, at: now) }
        for ticket in changes.updated { try store.update(ticket, at: now) }
    }

    /// Start, bump or recall one ticket, with its kitchen events in the same transaction.
    func command(_ command: TicketBoard.Command, _ ticketId: String) throws -> TicketView {
        try TicketBoard.checkId(ticketId, "ticketId")
        return try host.write {
            let orderTickets = try store.ticket(ticketId).map { try store.tickets(ofOrder: $0.orderId) } ?? []
            let now = host.clock.now()
            let outcome = try TicketBoard.perform(command, ticketId: ticketId, orderTickets: orderTickets, at: now, settings: settings)
            try store.update(outcome.ticket, at: now)
            for announcement in outcome.announcements {
                try host.emit(announcement.type, topic: announcement.topic, stream: "kitchen", .kitchen(announcement.event))
            }
            return TicketTimer.timed(outcome.ticket, at: now, settings: settings)
        }
    }

    /// Puts every ticket of an order ahead of the queue (or back in line).
    func rush(_ request: RushCommand) throws -> ExpediterOrder {
        try TicketBoard.checkId(request.orderId, "orderId")
        return try host.write {
            let now = host.clock.now()
            let changed = try TicketBoard.rushed(try store.tickets(ofOrder: request.orderId), orderId: request.orderId, rush: request.rush)
            for ticket in changed { try store.update(ticket, at: now) }
            return Expediter.orders(changed, at: now, settings: settings)[0]
        }
    }

    // MARK: Views

    /// `kds.tickets`: the station screens.
    func tickets(_ query: TicketsQuery) throws -> TicketsReply {
        let now = host.clock.now()
        return TicketsReply(tickets: KitchenViews.tickets(try load(includeDone: query.includeDone, at: now), query: query, at: now, settings: settings),
                            link: links.status())
    }

    /// `kds.orders`: the expediter's orders.
    func orders(_ query: OrdersQuery) throws -> OrdersReply {
        let now = host.clock.now()
        return OrdersReply(orders: KitchenViews.orders(try load(includeDone: query.includeDone, at: now), query: query, at: now, settings: settings),
                           link: links.status())
    }

    /// `kds.counts`: all-day counts of what is still to make.
    func counts(_ query: CountsQuery) throws -> CountsReply {
        CountsReply(counts: KitchenViews.counts(try store.current(closedSince: host.clock.now()), query: query), link: links.status())
    }

    /// Every ticket for a query with `includeDone`, else only those a screen may still show.
    private func load(includeDone: Bool?, at now: Timestamp) throws -> [Ticket] {
        includeDone == true ? try store.all() : try store.current(closedSince: KitchenViews.screenCutoff(at: now, settings: settings))
    }
}
