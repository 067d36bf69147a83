import Messages

/// A station's ticket: the lines of one order made at one station. The screen's value is the
/// wire's value, so the core and the command socket speak one type.
public typealias Ticket = TicketView

/// Kitchen rules: an order becomes one ticket per station; tickets move new → inProgress → ready
/// (bumped) → pickedUp, a bumped one may come back within the recall window; an order is ready
/// when every one of its station tickets is bumped.
public enum TicketBoard {
    /// The tickets for an order, one per station in the order the stations first appear.
    /// Ticket ids derive from order and station, so a replayed order never doubles a ticket.
    /// `at` is the order event's time, so a queue rebuilt by replay keeps every ticket's age.
    public static func tickets(for order: OrderSnapshot, at time: Timestamp) -> [Ticket] {
        var stations: [String] = []
        for line in order.lines where !stations.contains(line.station) { stations.append(line.station) }
        return stations.map { station in
            Ticket(ticketId: "\(order.orderId):\(station)", orderId: order.orderId, cafeId: order.cafeId, station: station, state: .new,
                   lines: order.lines.filter { $0.station == station }.map { TicketLine(name: $0.name, quantity: $0.quantity, modifiers: $0.modifiers) },
                   pickupStart: order.pickupStart, customerHere: order.customerHere, createdAt: time)
        }
    }

    /// What a chef (or the expediter) does to one ticket.
    public enum Command: String, Sendable, CaseIterable {
        case start, bump, recall
    }

    /// The state a command takes a ticket to, or the refusal. A recall needs the window.
    public static func apply(_ command: Command, to state: TicketState) throws(ServiceError) -> TicketState {
        switch (command, state) {
        case (.start, .new): return .inProgress
        case (.bump, .new), (.bump, .inProgress): return .ready
        case (.recall, .ready): return .inProgress
        default:
            throw ServiceError(.ticketIllegalTransition, "cannot \(command.rawValue) a ticket that is \(state.rawValue)")
        }
    }

    /// The ticket after a command at `now`: its new state, and the bump time the recall window
    /// runs from. A recall is refused once `recallSeconds` have passed since the bump.
    public static func apply(_ command: Command, to ticket: Ticket, at now: Timestamp, settings: KitchenSettings) throws(ServiceError) -> Ticket {
        var next = ticket
        next.state = try apply(command, to: ticket.state)
        switch command {
        case .start: break
        case .bump: next.bumpedAt = now
        case .recall:
            let since = now.seconds(since: ticket.bumpedAt ?? ticket.createdAt)
            guard since <= settings.recallSeconds else {
                throw ServiceError(.recallWindowClosed, "ticket \(ticket.ticketId) was bumped \(Int(since)) s ago; recall is open for \(Int(settings.recallSeconds)) s")
            }
            next.bumpedAt = nil
        }
        return next
    }

    /// A ticket after an order event: cancelled, picked up and no-show close it; arrival marks the
    /// customer here; order-service's "ready" closes open tickets a rebuilt queue still holds.
    /// Anything else leaves it as it is.
    public static func reacting(to type: EventType, _ ticket: Ticket, at time: Timestamp) -> Ticket {
        var next = ticket
        switch type {
        case .orderCancelled where ticket.state != .pickedUp:
            next.state = .cancelled
        case .orderPickedUp where ticket.state != .cancelled:
            next.state = .pickedUp
        case .orderNoShow where ticket.state != .cancelled && ticket.state != .pickedUp:
            next.state = .noShow
        case .orderReady where ticket.state.isOpen:
            next.state = .ready
            next.bumpedAt = time
        case .orderArrived:
            next.customerHere = true
        default:
            return ticket
        }
        if next.state != ticket.state, [.cancelled, .pickedUp, .noShow].contains(next.state) { next.closedAt = time }
        return next
    }

    /// Whether every ticket of an order is bumped (ready or beyond).
    public static func orderReady(_ tickets: [Ticket]) -> Bool {
        !tickets.isEmpty && tickets.allSatisfy { $0.state == .ready || $0.state == .pickedUp }
    }

    /// Whether a ticket is on a station's screen at `now`: open ones, and cancelled ones for a
    /// short while so the chef sees the mark rather than a ticket silently vanishing.
    public static func onStationScreen(_ ticket: Ticket, at now: Timestamp, settings: KitchenSettings) -> Bool {
        switch ticket.state {
        case .new, .inProgress: true
        case .cancelled: now.seconds(since: ticket.closedAt ?? ticket.createdAt) < settings.cancelledLingerSeconds
        case .ready, .pickedUp, .noShow: false
        }
    }

    /// Screen order: rush first, then customers already here, then by pickup window, then oldest first.
    public static func sorted(_ tickets: [Ticket]) -> [Ticket] {
        tickets.sorted { priorityKey($0) < priorityKey($1) }
    }

    static func priorityKey(_ t: Ticket) -> (Int, Int, Int64, Int64, String) {
        priorityKey(rush: t.rush, customerHere: t.customerHere, pickupStart: t.pickupStart, createdAt: t.createdAt, id: t.ticketId)
    }

    /// The one screen order, for tickets and for the expediter's orders alike.
    static func priorityKey(rush: Bool, customerHere: Bool, pickupStart: Timestamp, createdAt: Timestamp, id: String) -> (Int, Int, Int64, Int64, String) {
        (rush ? 0 : 1, customerHere ? 0 : 1, pickupStart.milliseconds, createdAt.milliseconds, id)
    }
}
