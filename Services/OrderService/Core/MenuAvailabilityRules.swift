import Campus
import Messages
import Policy

/// Sold-out items ("86"): who may mark an item unavailable at which café, what a change is, and
/// the refusal of an order that asks for an unavailable item. A kitchen acts for its own café;
/// an operator names the café.
public enum MenuAvailabilityRules {
    /// The café a request acts at: a kitchen's own (the body may leave it out; another is
    /// refused), else the one the body names.
    public static func cafeId(of request: MenuAvailabilityRequest, caller: Caller) throws(ServiceError) -> String {
        if caller.role == .kitchen, let own = caller.principal?.cafeId {
            let cafeId = request.cafeId ?? own
            try caller.requireCafe(cafeId, "change the menu")
            return cafeId
        }
        guard let cafeId = request.cafeId else { throw ServiceError(.invalidField, "missing field body.cafeId: name the café whose menu changes") }
        return cafeId
    }

    /// The request's fields against the café's menu: the item must be on it.
    public static func check(_ request: MenuAvailabilityRequest, cafe: Cafe) throws(ServiceError) {
        try RequestRules.validateID(request.itemId, field: "itemId")
        if let reason = request.reason { try RequestRules.validateReason(reason) }
        guard cafe.item(request.itemId) != nil else {
            throw ServiceError(.unknownItem, "\(Quoting.quoted(request.itemId)) is not on the menu of \(cafe.name)")
        }
    }

    /// The item's availability after the request, or nil when it already is what the request
    /// asks (nothing to store, nothing to announce). `current` nil: available (never changed).
    public static func change(_ request: MenuAvailabilityRequest, cafeId: String, current: MenuAvailability?, by: String,
                              now: Timestamp) -> MenuAvailability? {
        guard (current?.available ?? true) != request.available else { return nil }
        return MenuAvailability(cafeId: cafeId, itemId: request.itemId, available: request.available, reason: request.reason, by: by, at: now)
    }

    /// The refusal of an order with an item the café marked unavailable, naming the first.
    public static func checkAvailable(_ items: [OrderItemRequest], cafe: Cafe, unavailable: Set<String>) throws(ServiceError) {
        for (index, request) in items.enumerated() where unavailable.contains(request.itemId) {
            let name = cafe.item(request.itemId)?.name ?? request.itemId
            throw ServiceError(.itemUnavailable, "items[\(index)]: \(name) (\(request.itemId)) is sold out at \(cafe.name) right now",
                               details: ["itemId": request.itemId])
        }
    }
}
