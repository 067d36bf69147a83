/// Which rule chose the café a menu comes from, in the order they are tried.
public enum MenuRule: String, Codable, Sendable, CaseIterable {
    case preferredCafe, nearestBeacon, nearestByLocation, lastCafe, campusDefault
}

/// `menu.get`: the menu for where this user is now.
public struct MenuRequest: Codable, Sendable, Equatable {
    /// A phone may leave its own user and device out (they are taken from its key); a kiosk names none.
    public var userId: String?
    public var deviceId: String?
    /// The phone's locale, e.g. "en_US": prices and times are formatted for it.
    public var locale: String
    public init(userId: String?, deviceId: String?, locale: String) {
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

/// The café a menu comes from, as the menu shows it.
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

/// One item of a menu, priced for the café and formatted for the user's locale.
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

/// One modifier of a menu item, with its price.
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

/// What `menu.get` answers: the café the rule chose, which rule chose it, and its items.
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
