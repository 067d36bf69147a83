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
