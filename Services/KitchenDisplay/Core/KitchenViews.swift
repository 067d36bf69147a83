import Messages

/// What the `kds.*` queries show from the tickets the store loaded: the station screens, the
/// expediter's orders and the all-day counts, each filtered as the query asks, timed at `now`.
public enum KitchenViews {
    /// Tickets closed before this are off every screen: a query without `includeDone` needs only
    /// open tickets and those closed since.
    public static func screenCutoff(at now: Timestamp, settings: KitchenSettings) -> Timestamp {
        now.adding(seconds: -settings.cancelledLingerSeconds)
    }

    /// The station tickets a query asks for, in screen order, with age and colour.
    public static func tickets(_ loaded: [Ticket], query: TicketsQuery, at now: Timestamp, settings: KitchenSettings) -> [TicketView] {
        var tickets = loaded.filter { (query.cafeId == nil || $0.cafeId == query.cafeId) && (query.station == nil || $0.station == query.station) }
        if query.includeDone != true { tickets = tickets.filter { TicketBoard.onStationScreen($0, at: now, settings: settings) } }
        return TicketBoard.sorted(tickets, at: now).map { TicketTimer.timed($0, at: now, settings: settings) }
    }

    /// The expediter's orders a query asks for, in screen order.
    public static func orders(_ loaded: [Ticket], query: OrdersQuery, at now: Timestamp, settings: KitchenSettings) -> [ExpediterOrder] {
        let orders = Expediter.orders(loaded.filter { query.cafeId == nil || $0.cafeId == query.cafeId }, at: now, settings: settings)
        return query.includeDone == true ? orders : orders.filter { Expediter.onScreen($0, at: now, settings: settings) }
    }

    /// The all-day counts of the café and station a query names.
    public static func counts(_ loaded: [Ticket], query: CountsQuery) -> [ItemCount] {
        AllDayCounts.counts(loaded.filter { (query.cafeId == nil || $0.cafeId == query.cafeId) && (query.station == nil || $0.station == query.station) })
    }
}
