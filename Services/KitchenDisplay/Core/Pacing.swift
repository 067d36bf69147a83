import Messages

/// When the kitchen should have an order ready, and when each station should start on it.
///
/// Every order has a target ready time; each station ticket fires at the target less its longest
/// line's prep time, so the order's stations finish together (a 60 s coffee starts three minutes
/// after a 240 s burger). The target follows the customer:
///
/// - kiosk and App Clip orders: the customer is at the counter; as soon as the kitchen can (`immediate`);
/// - app orders: the pickup window's start (`window`), never earlier than the kitchen can make it;
/// - a paced app order whose customer enters the café's approach area: their expected arrival
///   (`approach`), earlier or later than the window, never earlier than the kitchen can make it;
/// - a paced app order whose customer arrives: as soon as the kitchen can (`arrival`);
/// - a paced app order whose customer's phone was known outside the approach area when it came
///   (`awayAt`): the window's end (`away`). A ticket the walk from the area's edge covers (prep at
///   most `awayWalkSeconds`) then waits for the approach, which moves the target to their arrival,
///   and at worst is ready at the window's end; a longer ticket keeps the window's start less its
///   prep, since even a customer who set off at once would wait for it.
///
/// Without a word of the customer the target stays at the window's start: a phone that shares
/// nothing is never held past it. Only tickets not yet
/// started count for "can make it": a station already cooking is not held back. Every time is
/// the order event's, so a queue rebuilt by replay gets the same targets.
public enum Pacing {
    /// A ticket's prep time: its longest line (a line without one counts 0: it fires at the target).
    public static func prepSeconds(of lines: [TicketLine]) -> Int {
        lines.map { $0.prepSeconds ?? 0 }.max() ?? 0
    }

    /// The earliest the kitchen can have these tickets done, starting at `time`: their longest
    /// prep among those not started yet.
    public static func earliestReady(_ tickets: [Ticket], at time: Timestamp) -> Timestamp {
        let prep = tickets.filter { $0.state == .new }.map { $0.prepSeconds ?? 0 }.max() ?? 0
        return time.adding(seconds: Double(prep))
    }

    /// The target and why, after an order event at `time`; nil when the event does not move it
    /// (an unpaced order's approach, an event the pacing ignores).
    public static func target(after type: EventType, order: OrderSnapshot, tickets: [Ticket], at time: Timestamp)
        -> (target: Timestamp, reason: PacingReason, expectedArrival: Timestamp?)? {
        let earliest = earliestReady(tickets, at: time)
        let paced = order.channel == .app && order.paced != false
        switch type {
        case .orderPlaced:
            if order.channel != .app { return (earliest, .immediate, nil) }
            if paced, order.awayAt != nil, order.awayWalkSeconds != nil { return (max(order.pickupEnd, earliest), .away, nil) }
            return (max(order.pickupStart, earliest), .window, nil)
        case .orderApproaching where paced:
            guard let expected = order.expectedArrivalAt else { return nil }
            return (max(expected, earliest), .approach, expected)
        case .orderArrived where paced:
            return (earliest, .arrival, time)
        default:
            return nil
        }
    }

    /// The longest walk an away hold trusts, seconds (the catalog's bound on `walkSeconds`): the
    /// snapshot's figure is clamped to it where it is used.
    public static let maxAwayWalkSeconds = 1800

    /// The tickets with the order's target and each one's fire time: the target less its prep.
    /// Held for an away customer (`holdingWalk`, with the window's start), a ticket longer than
    /// the walk fires at the window's start less its prep instead: the walk cannot cover it.
    public static func fired(_ tickets: [Ticket], target: Timestamp, holdingWalk walk: Int? = nil, windowStart: Timestamp? = nil) -> [Ticket] {
        tickets.map { ticket in
            var next = ticket
            let prep = Double(ticket.prepSeconds ?? 0)
            next.targetReadyAt = target
            next.fireAt = target.adding(seconds: -prep)
            if let walk, let windowStart, Int(prep) > min(max(0, walk), maxAwayWalkSeconds) {
                next.fireAt = min(target, windowStart).adding(seconds: -prep)
            }
            return next
        }
    }

    /// An order event's effect on the order's tickets (`current`: as they are after the event's
    /// own change): the re-targeted tickets and the `kitchen.paced` announcing it; nil when the
    /// target does not change.
    public static func paced(after type: EventType, order: OrderSnapshot, tickets current: [Ticket], at time: Timestamp)
        -> (tickets: [Ticket], pacing: KitchenPacing)? {
        guard !current.isEmpty, let decision = target(after: type, order: order, tickets: current, at: time) else { return nil }
        let previous = current.first?.targetReadyAt
        if previous == decision.target, type != .orderPlaced { return nil }
        let holding = decision.reason == .away ? order.awayWalkSeconds : nil
        let tickets = fired(current, target: decision.target, holdingWalk: holding, windowStart: order.pickupStart)
        let fires = tickets.filter { $0.state == .new }.map { KitchenPacing.StationFire(ticketId: $0.ticketId, station: $0.station, fireAt: $0.fireAt ?? decision.target) }
        let pacing = KitchenPacing(orderId: order.orderId, cafeId: order.cafeId, target: decision.target, previousTarget: type == .orderPlaced ? nil : previous,
                                   reason: decision.reason, expectedArrival: decision.expectedArrival, fires: fires, at: time)
        return (tickets, pacing)
    }

    /// Whether a ticket is held at `now`: not started, and its fire time still to come.
    public static func isHeld(_ ticket: Ticket, at now: Timestamp) -> Bool {
        guard ticket.state == .new, let fireAt = ticket.fireAt else { return false }
        return now < fireAt
    }
}
