/// `kitchen.<event>` on `kitchen.<event>.<cafe>.`: what the chefs did. Durable stream `kitchen`.
///
/// `kitchen.started` (a station began a ticket), `kitchen.bumped` (a station finished its ticket),
/// `kitchen.ready` (every station of the order bumped: the order is ready),
/// `kitchen.recalled` (a bumped ticket came back).
public struct KitchenEvent: Codable, Sendable, Equatable {
    public var orderId: String
    public var cafeId: String
    /// The station ticket concerned; nil for whole-order events.
    public var ticketId: String?
    public var station: String?
    public var at: Timestamp

    public init(orderId: String, cafeId: String, ticketId: String?, station: String?, at: Timestamp) {
        self.orderId = orderId
        self.cafeId = cafeId
        self.ticketId = ticketId
        self.station = station
        self.at = at
    }
}
