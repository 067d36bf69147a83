import Campus
import Messages

/// The rules of `order.place`, in the order a refusal is chosen: the request's fields and its
/// channel's rules (`check`, before anything is asked or written), then the reservation it spends
/// and the new order with its effects (`decide`, inside the transaction).
public enum OrderPlacement {
    /// A request that passed `check`: its café and its priced lines.
    public struct Checked: Sendable, Equatable {
        public var cafe: Cafe
        public var lines: [OrderLine]
        public var total: Int64
    }

    /// The field and channel rules: an app order is a signed-in user's and is paid; a kiosk may
    /// pay at pickup; an App Clip order is paid, from a device, with the code it was launched
    /// from (and only an App Clip order carries one). Then the items are priced.
    public static func check(_ request: PlaceOrderRequest, catalog: CampusCatalog) throws(ServiceError) -> Checked {
        let cafe = try RequestRules.cafe(request.cafeId, in: catalog)
        try RequestRules.validateLocale(request.locale)
        if let userId = request.userId { try RequestRules.validateID(userId, field: "userId") }
        if let deviceId = request.deviceId { try RequestRules.validateID(deviceId, field: "deviceId") }
        switch request.channel {
        case .app:
            guard request.userId != nil else { throw ServiceError(.invalidField, "an app order needs userId") }
            try RequestRules.validatePaymentToken(request.paymentToken)
        case .kiosk:
            if request.paymentToken != nil { try RequestRules.validatePaymentToken(request.paymentToken) }
        case .appClip:
            try RequestRules.validatePaymentToken(request.paymentToken)
            guard request.deviceId != nil else {
                throw ServiceError(.invalidField, "an App Clip order needs deviceId: location is confirmed for the phone that scanned the code")
            }
            guard request.clip != nil else { throw ServiceError(.invalidField, "an App Clip order needs clip: the code it was launched from") }
        }
        if request.clip != nil, request.channel != .appClip {
            throw ServiceError(.invalidField, "clip is only for appClip orders")
        }
        let priced = try Pricing.price(request.items, at: cafe)
        return Checked(cafe: cafe, lines: priced.lines, total: priced.total)
    }

    /// The new order on the reservation it spends (`ReservationRules.spend`), accepted at once:
    /// the payment token is recorded with it. `orderId` comes from the caller (ids are not rules);
    /// so does `away`, the phone known outside the approach area, which the order carries.
    public static func decide(_ request: PlaceOrderRequest, _ checked: Checked, reservation: ReservationRecord?, orderId: String,
                              now: Timestamp, away: (at: Timestamp, walkSeconds: Int)? = nil) throws(ServiceError) -> OrderEffects {
        let cafe = checked.cafe
        let spent = try ReservationRules.spend(reservation, id: request.reservationId, cafe: cafe, userId: request.userId, now: now)
        let start = spent.windowStart
        let placed = OrderSnapshot(
            orderId: orderId, cafeId: cafe.id, cafeName: cafe.name, timeZone: cafe.timeZone, currency: cafe.currency,
            channel: request.channel, userId: request.userId, deviceId: request.deviceId, state: .placed,
            lines: checked.lines, total: checked.total, pickupStart: start,
            pickupEnd: start.adding(seconds: PickupCalendar(cafe: cafe).windowSeconds), placedAt: now, customerHere: false,
            clipCode: request.clip?.url, paced: cafe.isPaced,
            noShowAt: start.adding(seconds: PickupCalendar(cafe: cafe).windowSeconds + Double(cafe.pickup.graceMinutes * 60)),
            awayAt: away?.at, awayWalkSeconds: away?.walkSeconds)
        var effects = OrderEffects(order: placed, at: now)
        effects.placement = OrderPlacementRecord(reservationId: request.reservationId, paymentToken: request.paymentToken)
        effects.audit.append(OrderAudit(orderId: orderId, from: nil, to: .placed, actor: .customer, reason: nil, at: now))
        effects.events.append(OrderEmission(.orderPlaced, label: "placed", event: OrderEvent(order: placed, previous: nil, reason: nil, at: now)))
        effects = try effects.then(.accepted, by: .system, reason: acceptance(request))
        if let userId = request.userId {
            effects.lastCafe = LastCafe(userId: userId, cafeId: cafe.id, at: now, keepsNewer: false)
        }
        return effects
    }

    /// Why an order was accepted as it was placed, as its audit row says.
    public static func acceptance(_ request: PlaceOrderRequest) -> String {
        switch request.channel {
        case .kiosk: request.paymentToken == nil ? "kiosk: pay at pickup" : "payment token recorded"
        case .app: "payment token recorded"
        case .appClip: "location confirmed at the scanned code; payment token recorded"
        }
    }
}
