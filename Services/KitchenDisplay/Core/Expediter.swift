import Messages

/// The expediter's view: whole orders, each with every station's ticket, in screen order.
public enum Expediter {
    /// Groups tickets by order. An order is ready when every station bumped, in progress once any
    /// station started or bumped, new otherwise; a closed order shows how it closed.
    public static func orders(_ tickets: [Ticket], at now: Timestamp, settings: KitchenSettings) -> [ExpediterOrder] {
        var byOrder: [String: [Ticket]] = [:]
        var firstSeen: [String] = []
        for ticket in tickets {
            if byOrder[ticket.orderId] == nil { firstSeen.append(ticket.orderId) }
            byOrder[ticket.orderId, default: []].append(ticket)
        }
        let orders = firstSeen.map { id -> ExpediterOrder in
            let group = byOrder[id]!.sorted { $0.station < $1.station }.map { TicketTimer.timed($0, at: now, settings: settings) }
            let first = group[0]
            let age = group.map { $0.ageSeconds ?? 0 }.max() ?? 0
            return ExpediterOrder(orderId: id, cafeId: first.cafeId, state: state(of: group), rush: group.contains { $0.rush },
                                  customerHere: group.contains { $0.customerHere }, pickupStart: first.pickupStart,
                                  createdAt: group.map(\.createdAt).min() ?? first.createdAt, ageSeconds: age,
                                  colour: TicketTimer.colour(ageSeconds: age, settings: settings), tickets: group,
                                  targetReadyAt: group.compactMap(\.targetReadyAt).first,
                                  arriving: group.contains { $0.arriving == true } ? true : nil,
                                  overdue: group.contains { $0.overdue == true } ? true : nil)
        }
        // An order is held while every station still to start is held; it is due at its first fire.
        func key(_ o: ExpediterOrder) -> TicketBoard.PriorityKey {
            let unstarted = o.tickets.filter { $0.state == .new }
            return TicketBoard.PriorityKey(rush: o.rush, overdue: o.overdue == true,
                                           held: !unstarted.isEmpty && unstarted.count == o.tickets.count && unstarted.allSatisfy { Pacing.isHeld($0, at: now) },
                                           customerHere: o.customerHere, due: o.tickets.compactMap(\.fireAt).min() ?? o.pickupStart,
                                           createdAt: o.createdAt, id: o.orderId)
        }
        return orders.sorted { key($0) < key($1) }
    }

    /// One state for a whole order.
    public static func state(of tickets: [Ticket]) -> TicketState {
        for closed in [TicketState.cancelled, .noShow, .pickedUp] where tickets.contains(where: { $0.state == closed }) { return closed }
        if TicketBoard.orderReady(tickets) { return .ready }
        if tickets.contains(where: { $0.state != .new }) { return .inProgress }
        return .new
    }

    /// Whether the expediter still has the order on screen: until it is picked up or no-show,
    /// and a cancelled one for the linger time, marked.
    public static func onScreen(_ order: ExpediterOrder, at now: Timestamp, settings: KitchenSettings) -> Bool {
        switch order.state {
        case .new, .inProgress, .ready: true
        case .cancelled: order.tickets.contains { TicketBoard.onStationScreen($0, at: now, settings: settings) }
        case .pickedUp, .noShow: false
        }
    }
}
