import Messages

/// Ticket age timers: how long a ticket has waited and the colour the screen gives it.
public enum TicketTimer {
    /// Seconds waited: until `now` while open, until the bump once bumped (the clock stops when
    /// the station is done), until it closed otherwise. Never negative.
    public static func age(of ticket: Ticket, at now: Timestamp) -> Int {
        let end: Timestamp = switch ticket.state {
        case .new, .inProgress: now
        case .ready: ticket.bumpedAt ?? now
        case .pickedUp, .cancelled, .noShow: ticket.bumpedAt ?? ticket.closedAt ?? now
        }
        return max(0, Int(end.seconds(since: ticket.createdAt)))
    }

    /// Green, then yellow at `yellowSeconds`, red at `redSeconds`.
    public static func colour(ageSeconds: Int, settings: KitchenSettings) -> AgeColour {
        let age = Double(ageSeconds)
        if age >= settings.redSeconds { return .red }
        if age >= settings.yellowSeconds { return .yellow }
        return .green
    }

    /// The ticket with its age and colour filled in, as replies carry it, and for a ticket not
    /// started yet whether it is held (with the seconds to its fire time) or to be fired.
    public static func timed(_ ticket: Ticket, at now: Timestamp, settings: KitchenSettings) -> Ticket {
        var timed = ticket
        let age = age(of: ticket, at: now)
        timed.ageSeconds = age
        timed.colour = colour(ageSeconds: age, settings: settings)
        if ticket.state == .new, let fireAt = ticket.fireAt {
            let wait = fireAt.seconds(since: now)
            timed.firing = wait > 0 ? .hold : .fire
            timed.holdSeconds = wait > 0 ? Int(wait.rounded(.up)) : nil
        }
        return timed
    }
}
