/// A user's default-location preference: "Closest to Me" or one café.
public enum LocationPreference: Codable, Sendable, Equatable {
    case closestToMe
    case cafe(String)

    enum CodingKeys: String, CodingKey { case kind, cafeId }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .kind) {
        case "closestToMe": self = .closestToMe
        case "cafe": self = .cafe(try c.decode(String.self, forKey: .cafeId))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "kind must be \"closestToMe\" or \"cafe\", not \(Quoting.quoted(other))")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .closestToMe: try c.encode("closestToMe", forKey: .kind)
        case .cafe(let id):
            try c.encode("cafe", forKey: .kind)
            try c.encode(id, forKey: .cafeId)
        }
    }
}

/// Which rule chose the café a menu comes from, in the order they are tried.
public enum MenuRule: String, Codable, Sendable, CaseIterable {
    case preferredCafe, nearestBeacon, nearestByLocation, lastCafe, campusDefault
}

/// `preference.set` / `preference.get`.
public struct PreferenceRequest: Codable, Sendable, Equatable {
    public var userId: String
    public var preference: LocationPreference?
    public init(userId: String, preference: LocationPreference? = nil) {
        self.userId = userId
        self.preference = preference
    }
}

public struct PreferenceView: Codable, Sendable, Equatable {
    public var userId: String
    public var preference: LocationPreference
    public init(userId: String, preference: LocationPreference) {
        self.userId = userId
        self.preference = preference
    }
}

/// `menu.get`: the menu for where this user is now.
public struct MenuRequest: Codable, Sendable, Equatable {
    public var userId: String
    public var deviceId: String?
    /// The phone's locale, e.g. "en_US": prices and times are formatted for it.
    public var locale: String
    public init(userId: String, deviceId: String?, locale: String) {
        self.userId = userId
        self.deviceId = deviceId
        self.locale = locale
    }
}

/// A price: exact minor units, the currency, and the text for the user's locale.
public struct PriceView: Codable, Sendable, Equatable {
    public var minorUnits: Int64
    public var currency: String
    public var formatted: String
    public init(minorUnits: Int64, currency: String, formatted: String) {
        self.minorUnits = minorUnits
        self.currency = currency
        self.formatted = formatted
    }
}

public struct CafeSummary: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var timeZone: String
    public var currency: String
    public init(id: String, name: String, timeZone: String, currency: String) {
        self.id = id
        self.name = name
        self.timeZone = timeZone
        self.currency = currency
    }
}

public struct MenuItemView: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var station: String
    public var price: PriceView
    public var modifiers: [ModifierView]
    /// False while the item is 86'd at the café: shown, but `order.place` refuses it.
    public var available: Bool
    public init(id: String, name: String, station: String, price: PriceView, modifiers: [ModifierView], available: Bool = true) {
        self.id = id
        self.name = name
        self.station = station
        self.price = price
        self.modifiers = modifiers
        self.available = available
    }
}

public struct ModifierView: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var price: PriceView
    public init(id: String, name: String, price: PriceView) {
        self.id = id
        self.name = name
        self.price = price
    }
}

public struct MenuReply: Codable, Sendable, Equatable {
    public var cafe: CafeSummary
    public var rule: MenuRule
    public var items: [MenuItemView]
    public init(cafe: CafeSummary, rule: MenuRule, items: [MenuItemView]) {
        self.cafe = cafe
        self.rule = rule
        self.items = items
    }
}

/// `windows.list`: the next pickup windows of a café with what remains of each.
public struct WindowsRequest: Codable, Sendable, Equatable {
    public var cafeId: String
    public var locale: String
    /// How many windows (default 8, at most 96).
    public var count: Int?
    public init(cafeId: String, locale: String, count: Int? = nil) {
        self.cafeId = cafeId
        self.locale = locale
        self.count = count
    }
}

public struct WindowView: Codable, Sendable, Equatable {
    public var start: Timestamp
    public var end: Timestamp
    /// Medium date, short time, in the café's zone and the user's locale.
    public var label: String
    public var capacity: Int
    public var remaining: Int
    public init(start: Timestamp, end: Timestamp, label: String, capacity: Int, remaining: Int) {
        self.start = start
        self.end = end
        self.label = label
        self.capacity = capacity
        self.remaining = remaining
    }
}

public struct WindowsReply: Codable, Sendable, Equatable {
    public var cafeId: String
    public var windows: [WindowView]
    public init(cafeId: String, windows: [WindowView]) {
        self.cafeId = cafeId
        self.windows = windows
    }
}

/// `window.reserve`: hold one place in a window until an order uses it (or the hold expires).
public struct ReserveRequest: Codable, Sendable, Equatable {
    public var cafeId: String
    /// The window's start; left out: the next window with room.
    public var start: Timestamp?
    public var userId: String?
    public var locale: String
    public init(cafeId: String, start: Timestamp?, userId: String?, locale: String) {
        self.cafeId = cafeId
        self.start = start
        self.userId = userId
        self.locale = locale
    }
}

public struct ReservationView: Codable, Sendable, Equatable {
    public var reservationId: String
    public var cafeId: String
    public var window: WindowView
    public var expiresAt: Timestamp
    public init(reservationId: String, cafeId: String, window: WindowView, expiresAt: Timestamp) {
        self.reservationId = reservationId
        self.cafeId = cafeId
        self.window = window
        self.expiresAt = expiresAt
    }
}

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

/// How an App Clip was invoked (APActivationPayload). Only a physical code at the café can have
/// its location confirmed; a clip opened from Safari, Messages, Maps or Spotlight cannot.
public enum ClipInvocation: String, Codable, Sendable, CaseIterable {
    case appClipCode, nfc, qrCode, safari, messages, maps, spotlight

    public var isPhysicalCode: Bool { self == .appClipCode || self == .nfc || self == .qrCode }
}

/// The launch an App Clip order comes from: the code's URL, how it was scanned, and when.
public struct ClipLaunch: Codable, Sendable, Equatable {
    /// The invocation URL, one the catalog issued for a café (`Cafe.clipCodes`).
    public var url: String
    public var invocation: ClipInvocation
    /// When the code was scanned: region-monitor confirms where the phone was then.
    public var acquiredAt: Timestamp
    public init(url: String, invocation: ClipInvocation, acquiredAt: Timestamp) {
        self.url = url
        self.invocation = invocation
        self.acquiredAt = acquiredAt
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
    public var deviceId: String
    public var userId: String
    public init(deviceId: String, userId: String) {
        self.deviceId = deviceId
        self.userId = userId
    }
}

public struct ClaimOrdersReply: Codable, Sendable, Equatable {
    public var userId: String
    /// The orders moved by this call (none when they had already moved).
    public var orderIds: [String]
    public init(userId: String, orderIds: [String]) {
        self.userId = userId
        self.orderIds = orderIds
    }
}

/// `menu.availability.set`: mark an item unavailable at a café ("86 it"), or available again.
/// A kitchen's café comes from its key (a body naming another is refused); an operator names one.
public struct MenuAvailabilityRequest: Codable, Sendable, Equatable {
    public var cafeId: String?
    public var itemId: String
    public var available: Bool
    /// Why, for the kitchen's log and the event (at most 200 characters).
    public var reason: String?
    public init(cafeId: String? = nil, itemId: String, available: Bool, reason: String? = nil) {
        self.cafeId = cafeId
        self.itemId = itemId
        self.available = available
        self.reason = reason
    }
}

/// An item's availability at a café: the reply of `menu.availability.set` and the body of
/// `menu.availability` on `menu.availability.<cafe>.` (stream `menu`).
public struct MenuAvailability: Codable, Sendable, Equatable {
    public var cafeId: String
    public var itemId: String
    public var available: Bool
    public var reason: String?
    /// The principal that changed it.
    public var by: String
    public var at: Timestamp
    public init(cafeId: String, itemId: String, available: Bool, reason: String?, by: String, at: Timestamp) {
        self.cafeId = cafeId
        self.itemId = itemId
        self.available = available
        self.reason = reason
        self.by = by
        self.at = at
    }
}

/// `catalog.reload` (order-service, region-monitor, notification-service): read the catalog file
/// again; switch to it when it validates whole, else keep the one in use and answer `catalog.invalid`.
public typealias CatalogReloadRequest = Empty

/// What a reload did.
public struct CatalogReloadReply: Codable, Sendable, Equatable {
    public var service: String
    /// False when the file was the catalog already in use.
    public var changed: Bool
    public var cafes: Int
    /// SHA-256 of the file now in use, hex: the same file gives the same digest in every service.
    public var digest: String
    public var loadedAt: Timestamp
    public init(service: String, changed: Bool, cafes: Int, digest: String, loadedAt: Timestamp) {
        self.service = service
        self.changed = changed
        self.cafes = cafes
        self.digest = digest
        self.loadedAt = loadedAt
    }
}
