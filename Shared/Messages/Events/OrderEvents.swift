/// An order's lifecycle: placed → accepted → preparing → ready → pickedUp, or cancelled, or noShow.
public enum OrderState: String, Codable, Sendable, CaseIterable {
    case placed, accepted, preparing, ready, pickedUp, cancelled, noShow

    /// Whether the order is finished and takes no further transition.
    public var isFinal: Bool { self == .pickedUp || self == .cancelled || self == .noShow }
}

/// Where an order came from.
public enum OrderChannel: String, Codable, Sendable, CaseIterable {
    /// The employee app: needs a payment token.
    case app
    /// A café kiosk: guests order without an account.
    case kiosk
    /// An App Clip opened from a code at the counter: needs a payment token and a location confirmation.
    case appClip
}

/// One line of an order, priced by the server.
public struct OrderLine: Codable, Sendable, Equatable {
    public var itemId: String
    public var name: String
    public var quantity: Int
    public var modifiers: [String]
    /// The station that makes it (kitchen routing).
    public var station: String
    /// Price of one, modifiers included, in the currency's minor units.
    public var unitPrice: Int64
    public var lineTotal: Int64
    /// Seconds the station needs for this line, modifiers included, from the catalog the order
    /// was placed under (a reload later does not change an open order). Nil on orders placed
    /// before prep times existed: the kitchen fires those at once.
    public var prepSeconds: Int?

    public init(itemId: String, name: String, quantity: Int, modifiers: [String], station: String, unitPrice: Int64, lineTotal: Int64,
                prepSeconds: Int? = nil) {
        self.itemId = itemId
        self.name = name
        self.quantity = quantity
        self.modifiers = modifiers
        self.station = station
        self.unitPrice = unitPrice
        self.lineTotal = lineTotal
        self.prepSeconds = prepSeconds
    }

    /// The quantities an order event may carry: kitchen-display adds them up per day, so a
    /// publisher on the bus must not hand it one near `Int.max`. Far above what order-service
    /// sells (`Pricing.maxQuantity`).
    public static let quantityRange = 1...1_000
    /// The prep times an order event may carry: the kitchen adds them to clocks.
    public static let prepSecondsRange = 0...7_200

    enum CodingKeys: String, CodingKey { case itemId, name, quantity, modifiers, station, unitPrice, lineTotal, prepSeconds }

    /// `quantity` within `quantityRange`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        itemId = try c.decode(String.self, forKey: .itemId)
        name = try c.decode(String.self, forKey: .name)
        quantity = try c.decode(Int.self, forKey: .quantity, in: Self.quantityRange)
        modifiers = try c.decode([String].self, forKey: .modifiers)
        station = try c.decode(String.self, forKey: .station)
        unitPrice = try c.decode(Int64.self, forKey: .unitPrice)
        lineTotal = try c.decode(Int64.self, forKey: .lineTotal)
        prepSeconds = try c.decodeIfPresent(Int.self, forKey: .prepSeconds, in: Self.prepSecondsRange)
    }
}

/// An order as every consumer needs it: self-contained, so the kitchen and notifications
/// decide from the event and their own state without reading order-service's tables.
public struct OrderSnapshot: Codable, Sendable, Equatable {
    public var orderId: String
    public var cafeId: String
    public var cafeName: String
    /// IANA time zone of the café, for local pickup times.
    public var timeZone: String
    /// ISO 4217 code of every amount in this order.
    public var currency: String
    public var channel: OrderChannel
    public var userId: String?
    public var deviceId: String?
    public var state: OrderState
    public var lines: [OrderLine]
    public var total: Int64
    public var pickupStart: Timestamp
    public var pickupEnd: Timestamp
    public var placedAt: Timestamp
    /// The customer's arrival was seen (region event) — the kitchen shows "customer here".
    public var customerHere: Bool
    /// For an App Clip order: the URL of the code scanned at the café, confirmed by region-monitor.
    public var clipCode: String?
    /// Whether the kitchen paces this order by where its customer is (the café's `pacing`, as
    /// the catalog said when the order was placed). Nil means true.
    public var paced: Bool?
    /// When the customer entered the café's approach area (`order.approaching`); nil until then.
    public var approachedAt: Timestamp?
    /// When the customer is expected at the counter: approach plus the café's walk.
    public var expectedArrivalAt: Timestamp?
    /// For a paced app order: when region-monitor last decided, from a fix, that the customer's
    /// phone was outside the café's approach area, if that still held when the order was placed
    /// (nil: nothing known, or the phone was inside). The kitchen holds what the walk covers.
    public var awayAt: Timestamp?
    /// With `awayAt`: the café's walk from its approach area's edge to the counter, seconds.
    public var awayWalkSeconds: Int?
    /// When order-service escalated the order as overdue (`order.overdue`): not ready by the
    /// end of its window plus grace.
    public var overdueAt: Timestamp?
    /// How many times the kitchen recalled the order after it was ready (ready → preparing).
    /// Each ready after a recall notifies again under the same collapse id.
    public var recalls: Int?
    /// When the café no longer counts it a no-show-in-waiting: the end of its window plus the
    /// café's grace. A ready notification is worth delivering until then.
    public var noShowAt: Timestamp?

    public init(orderId: String, cafeId: String, cafeName: String, timeZone: String, currency: String, channel: OrderChannel, userId: String?, deviceId: String?, state: OrderState, lines: [OrderLine], total: Int64, pickupStart: Timestamp, pickupEnd: Timestamp, placedAt: Timestamp, customerHere: Bool, clipCode: String? = nil,
                paced: Bool? = nil, approachedAt: Timestamp? = nil, expectedArrivalAt: Timestamp? = nil, overdueAt: Timestamp? = nil, recalls: Int? = nil,
                noShowAt: Timestamp? = nil, awayAt: Timestamp? = nil, awayWalkSeconds: Int? = nil) {
        self.orderId = orderId
        self.cafeId = cafeId
        self.cafeName = cafeName
        self.timeZone = timeZone
        self.currency = currency
        self.channel = channel
        self.userId = userId
        self.deviceId = deviceId
        self.state = state
        self.lines = lines
        self.total = total
        self.pickupStart = pickupStart
        self.pickupEnd = pickupEnd
        self.placedAt = placedAt
        self.customerHere = customerHere
        self.clipCode = clipCode
        self.paced = paced
        self.approachedAt = approachedAt
        self.expectedArrivalAt = expectedArrivalAt
        self.overdueAt = overdueAt
        self.recalls = recalls
        self.noShowAt = noShowAt
        self.awayAt = awayAt
        self.awayWalkSeconds = awayWalkSeconds
    }
}

/// `order.<state>` on `order.<state>.<cafe>.`: an order changed state (or, for `order.arrived`,
/// `order.approaching`, `order.overdue` and `order.claimed`, changed without a transition: its
/// customer arrived or came near, it ran late, it moved to an account). Durable stream `order`.
public struct OrderEvent: Codable, Sendable, Equatable {
    public var order: OrderSnapshot
    /// The state before this transition; nil for `order.placed`.
    public var previous: OrderState?
    /// Why, for cancellations and no-shows.
    public var reason: String?
    public var at: Timestamp

    public init(order: OrderSnapshot, previous: OrderState?, reason: String?, at: Timestamp) {
        self.order = order
        self.previous = previous
        self.reason = reason
        self.at = at
    }
}
