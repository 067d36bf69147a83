/// One requested line: the server prices it from the café's menu.
public struct OrderItemRequest: Codable, Sendable, Equatable {
    public var itemId: String
    public var quantity: Int
    public var modifiers: [String]?
    public init(itemId: String, quantity: Int, modifiers: [String]? = nil) {
        self.itemId = itemId
        self.quantity = quantity
        self.modifiers = modifiers
    }
}

/// `order.place`.
public struct PlaceOrderRequest: Codable, Sendable, Equatable {
    /// Client-chosen, 8–64 characters of [A-Za-z0-9_-]; a retry with the same key and body gets the first answer.
    public var idempotencyKey: String
    public var channel: OrderChannel
    public var userId: String?
    public var deviceId: String?
    public var cafeId: String
    public var reservationId: String
    public var items: [OrderItemRequest]
    public var paymentToken: String?
    public var locale: String
    /// App Clip orders: the code the clip was launched from.
    public var clip: ClipLaunch?
    public init(idempotencyKey: String, channel: OrderChannel, userId: String?, deviceId: String?, cafeId: String, reservationId: String, items: [OrderItemRequest], paymentToken: String?, locale: String, clip: ClipLaunch? = nil) {
        self.idempotencyKey = idempotencyKey
        self.channel = channel
        self.userId = userId
        self.deviceId = deviceId
        self.cafeId = cafeId
        self.reservationId = reservationId
        self.items = items
        self.paymentToken = paymentToken
        self.locale = locale
        self.clip = clip
    }
}

/// `order.get`.
public struct OrderQuery: Codable, Sendable, Equatable {
    public var orderId: String
    public var locale: String?
    public init(orderId: String, locale: String? = nil) {
        self.orderId = orderId
        self.locale = locale
    }
}

/// An order with its amounts and pickup time formatted for the asking user.
public struct OrderView: Codable, Sendable, Equatable {
    public var order: OrderSnapshot
    public var total: PriceView
    public var pickupLabel: String
    public init(order: OrderSnapshot, total: PriceView, pickupLabel: String) {
        self.order = order
        self.total = total
        self.pickupLabel = pickupLabel
    }
}

/// `order.cancel`: by the customer (before preparing; their userId or deviceId must match the
/// order) or by the kitchen (any time before pickup, with a reason).
public struct CancelOrderRequest: Codable, Sendable, Equatable {
    public enum Actor: String, Codable, Sendable, CaseIterable { case customer, kitchen }
    public var orderId: String
    public var by: Actor
    public var userId: String?
    public var deviceId: String?
    public var reason: String?
    public var locale: String?
    public init(orderId: String, by: Actor, userId: String? = nil, deviceId: String? = nil, reason: String? = nil, locale: String? = nil) {
        self.orderId = orderId
        self.by = by
        self.userId = userId
        self.deviceId = deviceId
        self.reason = reason
        self.locale = locale
    }
}

/// One row of an order's audit trail.
public struct AuditEntry: Codable, Sendable, Equatable {
    public var from: OrderState?
    public var to: OrderState
    public var actor: String
    public var reason: String?
    public var at: Timestamp
    public init(from: OrderState?, to: OrderState, actor: String, reason: String?, at: Timestamp) {
        self.from = from
        self.to = to
        self.actor = actor
        self.reason = reason
        self.at = at
    }
}

/// `order.history`: every transition of an order, oldest first.
public struct OrderHistory: Codable, Sendable, Equatable {
    public var orderId: String
    public var state: OrderState
    public var entries: [AuditEntry]
    public init(orderId: String, state: OrderState, entries: [AuditEntry]) {
        self.orderId = orderId
        self.state = state
        self.entries = entries
    }
}

/// `order.claim`: a guest signed in; their App Clip orders from this device move to the account.
public struct ClaimOrdersRequest: Codable, Sendable, Equatable {
    /// A phone may leave its own device and user out (they are taken from its key).
    public var deviceId: String?
    public var userId: String?
    public init(deviceId: String?, userId: String?) {
        self.deviceId = deviceId
        self.userId = userId
    }
}

/// What `order.claim` answers.
public struct ClaimOrdersReply: Codable, Sendable, Equatable {
    public var userId: String
    /// The orders moved by this call (none when they had already moved).
    public var orderIds: [String]
    public init(userId: String, orderIds: [String]) {
        self.userId = userId
        self.orderIds = orderIds
    }
}
