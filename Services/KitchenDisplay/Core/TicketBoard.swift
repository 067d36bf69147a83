import Messages

/// A station's ticket: the lines of one order made at one station. The screen's value is the
/// wire's value, so the core and the command socket speak one type.
public typealias Ticket = TicketView

/// Kitchen rules: an order becomes one ticket per station; tickets move new → inProgress → ready
/// (bumped) → pickedUp; an order is ready when every one of its station tickets is bumped.
public enum TicketBoard {
    /// The tickets for an order, one per station in the order the stations first appear.
    /// Ticket ids derive from order and station, so a replayed order never doubles a ticket.
    public static func tickets(for order: OrderSnapshot, at now: Timestamp) -> [Ticket] {
        var stations: [String] = []
        for line in order.lines where !stations.contains(line.station) { stations.append(line.station) }
        return stations.map { station in
            Ticket(ticketId: "\(order.orderId):\(station)", orderId: order.orderId, cafeId: order.cafeId, station: station, state: .new,
                   lines: order.lines.filter { $0.station == station }.map { TicketLine(name: $0.name, quantity: $0.quantity, modifiers: $0.modifiers) },
                   pickupStart: order.pickupStart, customerHere: order.customerHere, createdAt: now)
        }
    }

    public enum Command: String, Sendable {
        case start, bump
    }

    /// The state a command takes a ticket to, or the refusal.
    public static func apply(_ command: Command, to state: TicketState) throws(ServiceError) -> TicketState {
        switch (command, state) {
        case (.start, .new): return .inProgress
        case (.bump, .new), (.bump, .inProgress): return .ready
        default:
            throw ServiceError(.ticketIllegalTransition, "cannot \(command.rawValue) a ticket that is \(state.rawValue)")
        }
    }

    /// Whether every ticket of an order is bumped (ready or beyond).
    public static func orderReady(_ tickets: [Ticket]) -> Bool {
        !tickets.isEmpty && tickets.allSatisfy { $0.state == .ready || $0.state == .pickedUp }
    }

    /// Screen order: customer here first, then by pickup window, then oldest first.
    public static func sorted(_ tickets: [Ticket]) -> [Ticket] {
        tickets.sorted {
            ($0.customerHere ? 0 : 1, $0.pickupStart.milliseconds, $0.createdAt.milliseconds, $0.ticketId)
                < ($1.customerHere ? 0 : 1, $1.pickupStart.milliseconds, $1.createdAt.milliseconds, $1.ticketId)
        }
    }
}
