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

/// Why the kitchen's target ready time for an order is what it is.
public enum PacingReason: String, Codable, Sendable, CaseIterable {
    /// The pickup window's start: nothing known of the customer (the default for app orders).
    case window
    /// A kiosk, App Clip or unpaced walk-up order: the customer is at the counter, fire at once.
    case immediate
    /// The customer entered the café's approach area: their expected arrival.
    case approach
    /// The customer arrived at the café: as soon as the kitchen can make it.
    case arrival
    /// The customer's phone was outside the approach area when the order came: the window's end,
    /// so what their walk covers waits for them to come near; longer items keep the window's start.
    case away
}

/// `kitchen.paced` on `kitchen.paced.<cafe>.`: the kitchen set or moved an order's target ready
/// time, and with it each station ticket's fire time. Durable stream `kitchen`.
public struct KitchenPacing: Codable, Sendable, Equatable {
    /// One station ticket's fire time: the target less the ticket's longest prep time.
    public struct StationFire: Codable, Sendable, Equatable {
        public var ticketId: String
        public var station: String
        public var fireAt: Timestamp
        public init(ticketId: String, station: String, fireAt: Timestamp) {
            self.ticketId = ticketId
            self.station = station
            self.fireAt = fireAt
        }
    }

    public var orderId: String
    public var cafeId: String
    /// When every station of the order should finish.
    public var target: Timestamp
    /// The target before this change; nil when the order first reached the kitchen.
    public var previousTarget: Timestamp?
    public var reason: PacingReason
    /// The customer's expected arrival, for `approach` and `arrival`.
    public var expectedArrival: Timestamp?
    public var fires: [StationFire]
    public var at: Timestamp

    public init(orderId: String, cafeId: String, target: Timestamp, previousTarget: Timestamp?, reason: PacingReason, expectedArrival: Timestamp?,
                fires: [StationFire], at: Timestamp) {
        self.orderId = orderId
        self.cafeId = cafeId
        self.target = target
        self.previousTarget = previousTarget
        self.reason = reason
        self.expectedArrival = expectedArrival
        self.fires = fires
        self.at = at
    }
}
