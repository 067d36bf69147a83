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
            let lines = order.lines.filter { $0.station == station }
                .map { TicketLine(name: $0.name, quantity: $0.quantity, modifiers: $0.modifiers, prepSeconds: $0.prepSeconds, itemId: $0.itemId) }
            return Ticket(ticketId: "\(order.orderId):\(station)", orderId: order.orderId, cafeId: order.cafeId, station: station, state: .new,
                          lines: lines, pickupStart: order.pickupStart, customerHere: order.customerHere, createdAt: time,
                          prepSeconds: Pacing.prepSeconds(of: lines), arriving: order.approachedAt != nil ? true : nil,
                          overdue: order.overdueAt != nil ? true : nil)
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
        case .orderApproaching:
            next.arriving = true
        case .orderOverdue:
            next.overdue = true
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

    /// Screen order at `now`: rush first, then overdue, then what should be cooking (started or
    /// fired) ahead of what is held; within each, customers already here first, then by fire
    /// time (the pickup window for tickets without one), then oldest first.
    public static func sorted(_ tickets: [Ticket], at now: Timestamp) -> [Ticket] {
        tickets.sorted { priorityKey($0, at: now) < priorityKey($1, at: now) }
    }

    static func priorityKey(_ t: Ticket, at now: Timestamp) -> PriorityKey {
        PriorityKey(rush: t.rush, overdue: t.overdue == true, held: Pacing.isHeld(t, at: now), customerHere: t.customerHere,
                    due: t.fireAt ?? t.pickupStart, createdAt: t.createdAt, id: t.ticketId)
    }

    /// The one screen order, for tickets and for the expediter's orders alike.
    struct PriorityKey: Comparable {
        var rush: Bool
        var overdue: Bool
        var held: Bool
        var customerHere: Bool
        var due: Timestamp
        var createdAt: Timestamp
        var id: String

        /// Flags first (rush, overdue, not held, customer here), then due time, age and id.
        private var flags: Int { (rush ? 0 : 8) + (overdue ? 0 : 4) + (held ? 2 : 0) + (customerHere ? 0 : 1) }

        static func < (a: PriorityKey, b: PriorityKey) -> Bool {
            (a.flags, a.due.milliseconds, a.createdAt.milliseconds, a.id) < (b.flags, b.due.milliseconds, b.createdAt.milliseconds, b.id)
        }
    }
}
