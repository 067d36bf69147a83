import Messages

/// A kitchen event a change announces, with the topic it goes out on (stream `kitchen`).
public struct KitchenAnnouncement: Sendable, Equatable {
    public var type: EventType
    public var topic: String
    public var event: KitchenEvent

    /// `kitchen.<name>` on `kitchen.<name>.<cafe>.`.
    public init(_ type: EventType, _ name: String, _ event: KitchenEvent) {
        self.type = type
        topic = Topic.kitchen(event: name, cafe: event.cafeId)
        self.event = event
    }
}

/// What a chef's command comes to: the ticket after it, and the events written with it.
public struct CommandOutcome: Sendable, Equatable {
    public var ticket: Ticket
    public var announcements: [KitchenAnnouncement]

    /// The ticket after the command, and what it announces.
    public init(ticket: Ticket, announcements: [KitchenAnnouncement]) {
        self.ticket = ticket
        self.announcements = announcements
    }
}

/// What an order event does to the kitchen's tickets: new ones to add, changed ones to write.
public struct TicketChanges: Sendable, Equatable {
    public var inserted: [Ticket]
    public var updated: [Ticket]

    /// Tickets to add and tickets to write; none by default.
    public init(inserted: [Ticket] = [], updated: [Ticket] = []) {
        self.inserted = inserted
        self.updated = updated
    }
}

extension TicketBoard {
    /// A command on ticket `ticketId` at `now`, given every ticket of its order (none when the
    /// kitchen has no such ticket). Every station's event, and `kitchen.ready` once the bump was
    /// the order's last.
    public static func perform(_ command: Command, ticketId: String, orderTickets: [Ticket], at now: Timestamp,
                               settings: KitchenSettings) throws(ServiceError) -> CommandOutcome {
        guard let ticket = orderTickets.first(where: { $0.ticketId == ticketId }) else {
            throw ServiceError(.unknownTicket, "no ticket \(ticketId)")
        }
        let next = try apply(command, to: ticket, at: now, settings: settings)
        let event = KitchenEvent(orderId: next.orderId, cafeId: next.cafeId, ticketId: next.ticketId, station: next.station, at: now)
        var announcements: [KitchenAnnouncement]
        switch command {
        case .start:
            announcements = [KitchenAnnouncement(.kitchenStarted, "started", event)]
        case .recall:
            announcements = [KitchenAnnouncement(.kitchenRecalled, "recalled", event)]
        case .bump:
            announcements = [KitchenAnnouncement(.kitchenBumped, "bumped", event)]
            if orderReady(orderTickets.map { $0.ticketId == next.ticketId ? next : $0 }) {
                announcements.append(KitchenAnnouncement(.kitchenReady, "ready", KitchenEvent(orderId: next.orderId, cafeId: next.cafeId, ticketId: nil, station: nil, at: now)))
            }
        }
        return CommandOutcome(ticket: next, announcements: announcements)
    }

    /// Every ticket of an order put ahead of the queue (or back in line); refused when the kitchen
    /// has none of the order's tickets.
    public static func rushed(_ orderTickets: [Ticket], orderId: String, rush: Bool) throws(ServiceError) -> [Ticket] {
        guard !orderTickets.isEmpty else { throw ServiceError(.kitchenUnknownOrder, "the kitchen has no ticket of order \(orderId)") }
        return orderTickets.map { ticket in
            var next = ticket
            next.rush = rush
            return next
        }
    }

    /// An order event's effect: `order.placed` adds the order's station tickets; any other event
    /// changes the order's `existing` tickets as `reacting(to:)` says (unchanged ones are left out).
    public static func changes(after type: EventType, of order: OrderSnapshot, at time: Timestamp, existing: [Ticket]) -> TicketChanges {
        if type == .orderPlaced { return TicketChanges(inserted: tickets(for: order, at: time)) }
        return TicketChanges(updated: existing.compactMap { ticket in
            let next = reacting(to: type, ticket, at: time)
            return next == ticket ? nil : next
        })
    }

    /// Ids are order ids and "<order>:<station>": printable, bounded.
    public static func checkId(_ id: String, _ field: String) throws(ServiceError) {
        guard !id.isEmpty, id.utf8.count <= 200, !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ServiceError(.invalidField, "body.\(field) must be 1 to 200 printable characters")
        }
    }
}
