import Campus
import Messages

/// What a customer does to their orders without changing their state: walking into the café
/// (the kitchen sees "customer here") and a guest signing in on the phone their App Clip ordered
/// from (the orders move to the account).
public enum OrderCustomerEvents {
    /// The café a region event says the device entered; nil for anything else. Only the campus
    /// monitor's satisfied conditions count: another monitor's identifiers mean what its owner says.
    /// The café's own condition is its beacons, named by the café id; `<id>.area` and
    /// `<id>.approach` are wider circles and are not arrivals.
    public static func arrivalCafe(_ event: RegionEvent) -> String? {
        guard event.state == .satisfied, event.monitor == CampusCatalog.monitorName, !event.identifier.utf8.contains(UInt8(ascii: ".")) else { return nil }
        return event.identifier
    }

    /// The café whose approach area (`<id>.approach`) a region event says the device entered; nil otherwise.
    public static func approachCafe(_ event: RegionEvent) -> String? {
        guard event.state == .satisfied, event.monitor == CampusCatalog.monitorName, event.identifier.hasSuffix(".approach") else { return nil }
        let cafe = event.identifier.dropLast(".approach".count)
        return !cafe.isTopicPart ? nil : String(cafe)
    }

    /// The café whose approach area a campus region event decides, and whether it says the device
    /// is known outside it: `unsatisfied` is decided from a fix (a precise one wholly outside, or
    /// an approximate one wholly outside even with its 1 km uncertainty); `satisfied` and `unknown`
    /// are not "outside". Nil for any other event.
    public static func approachDecision(_ event: RegionEvent) -> (cafeId: String, outside: Bool)? {
        guard event.monitor == CampusCatalog.monitorName, event.identifier.hasSuffix(".approach") else { return nil }
        let cafe = event.identifier.dropLast(".approach".count)
        guard cafe.isTopicPart else { return nil }
        return (String(cafe), event.state == .unsatisfied)
    }

    /// The effects of the device entering the approach area of the café of `orders` (its open
    /// orders there): each app order the kitchen still has to make, whose customer is neither
    /// here nor already seen approaching, gets `approachedAt`, `expectedArrivalAt` (approach plus
    /// the café's walk) and an `order.approaching` event. Kiosk and App Clip orders are made at
    /// once: their customer is at the counter.
    public static func approach(_ event: RegionEvent, orders: [OrderSnapshot], walkSeconds: Int, now: Timestamp) -> [OrderEffects] {
        orders.filter { order in
            order.channel == .app && !order.customerHere && order.approachedAt == nil
                && [.placed, .accepted, .preparing].contains(order.state)
        }.map { order in
            var effects = OrderEffects(order: order, at: now)
            effects.order.approachedAt = event.date
            effects.order.expectedArrivalAt = event.date.adding(seconds: Double(walkSeconds))
            effects.events.append(OrderEmission(.orderApproaching, label: "approaching", event: OrderEvent(
                order: effects.order, previous: order.state, reason: "customer entered the approach area of \(order.cafeName)", at: event.date)))
            return effects
        }
    }

    /// The effects of the device entering the café of `orders` (its open orders there): each one
    /// not yet marked is marked "customer here" with an `order.arrived` event.
    public static func arrival(_ event: RegionEvent, orders: [OrderSnapshot], now: Timestamp) -> [OrderEffects] {
        orders.filter { !$0.customerHere }.map { order in
            var effects = OrderEffects(order: order, at: now)
            effects.order.customerHere = true
            effects.events.append(OrderEmission(.orderArrived, label: "arrived", event: OrderEvent(
                order: effects.order, previous: order.state, reason: "customer entered \(order.cafeName)", at: event.date)))
            return effects
        }
    }

    /// The user and device ids of `order.claim`.
    /// The device and user of an `order.claim`, both there and well formed (a phone's left-out
    /// ids were filled from its key by `OrderScope.claim`).
    public static func checkClaim(_ request: ClaimOrdersRequest) throws(ServiceError) -> (deviceId: String, userId: String) {
        guard let deviceId = request.deviceId else { throw ServiceError(.invalidField, "missing field body.deviceId") }
        guard let userId = request.userId else { throw ServiceError(.invalidField, "missing field body.userId") }
        try RequestRules.validateID(deviceId, field: "deviceId")
        try RequestRules.validateID(userId, field: "userId")
        return (deviceId, userId)
    }

    /// The effects of a guest signing in: of `orders` (the device's orders with no user, oldest
    /// first), each App Clip order moves to the account with an audit row and an `order.claimed`
    /// event, and its café becomes the user's last unless they used one since.
    public static func claim(userId: String, orders: [OrderSnapshot], now: Timestamp) -> [OrderEffects] {
        orders.filter { $0.channel == .appClip && $0.userId == nil }.map { order in
            var effects = OrderEffects(order: order, at: now)
            effects.order.userId = userId
            effects.audit.append(OrderAudit(orderId: order.orderId, from: order.state, to: order.state, actor: .customer,
                                            reason: "App Clip guest signed in as \(userId)", at: now))
            effects.events.append(OrderEmission(.orderClaimed, label: "claimed", event: OrderEvent(
                order: effects.order, previous: order.state, reason: "moved to the account \(userId)", at: now)))
            effects.lastCafe = LastCafe(userId: userId, cafeId: order.cafeId, at: order.placedAt, keepsNewer: true)
            return effects
        }
    }
}
