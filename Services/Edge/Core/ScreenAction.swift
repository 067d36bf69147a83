/// The screens' snapshots the edge composes (issue 29). Each answers the state a page starts from
/// with `seq`, the id of the last event of the café's stream it includes: the page then opens
/// `GET /v1/screens/events` with `Last-Event-ID: <seq>` and misses nothing in between.
public enum ScreenAction: String, Sendable, CaseIterable {
    /// The web kitchen display: the station's tickets, the expediter's orders, the all-day counts
    /// and the recall list, as kitchen-display's ops answer them.
    case kitchenScreen
    /// The customer pickup board: short order numbers and initials, preparing or ready, from
    /// the edge's own journal of the café's order events.
    case pickupBoard
    /// The operator's status page: every process the edge reaches, with its health.
    case status
}
