import Messages

/// "All day": how many of each item the open tickets still need, per station, so a cook fires
/// six burgers at once instead of reading six tickets.
public enum AllDayCounts {
    /// Quantities of open (new or in-progress) tickets, summed by station and item name; biggest first.
    public static func counts(_ tickets: [Ticket]) -> [ItemCount] {
        var totals: [String: ItemCount] = [:]
        for ticket in tickets where ticket.state.isOpen {
            for line in ticket.lines {
                let key = ticket.station + "\u{1}" + line.name
                totals[key, default: ItemCount(name: line.name, station: ticket.station, quantity: 0)].quantity += line.quantity
            }
        }
        return totals.values.sorted { ($0.station, -$0.quantity, $0.name) < ($1.station, -$1.quantity, $1.name) }
    }
}
