import Messages
import Policy

/// Who may do what to whom in order-service, decided from the caller's key and never from the
/// body (issue 13). `OpAccess` has already let the caller's role call the op; these rules keep a
/// phone to its own user and device, a kiosk to guest orders at its café (placing, reading, handing
/// over and cancelling them), a kitchen to its café.
/// The plain-mode developer and the operator pass (the operator's ops are read-only by the table).
///
/// To a phone, kiosk or kitchen, an order that does not exist and one outside its scope answer
/// alike (`auth.forbidden`, "…, or there is no such order"), so a refusal never tells whether
/// somebody else's order id is real.
public enum OrderScope {
    /// `order.place` as `caller` would place it. A phone orders through the app or the App Clip as
    /// its own user and device (left-out ids are taken from its key; an App Clip order stays a
    /// guest's unless it names the phone's user, so `order.claim` can move it later). A kiosk
    /// places guest orders at its café: channel kiosk, no user, no device.
    public static func placement(_ request: PlaceOrderRequest, caller: Caller) throws(ServiceError) -> PlaceOrderRequest {
        var scoped = request
        switch caller.role {
        case .phone:
            guard request.channel != .kiosk else { throw caller.forbidden("place a kiosk order; a phone orders through the app or the App Clip") }
            if request.channel != .appClip || request.userId != nil { scoped.userId = try caller.actingUser(request.userId) }
            scoped.deviceId = try caller.actingDevice(request.deviceId)
        case .kiosk:
            guard request.channel == .kiosk else { throw caller.forbidden("place an \(request.channel.rawValue) order; a kiosk places kiosk orders") }
            try refuseIdentity(request.userId, request.deviceId, caller: caller, to: "place an order")
            try caller.requireCafe(request.cafeId, "place an order")
        default:
            break
        }
        return scoped
    }

    /// `window.reserve` as `caller` would hold the place. A phone holds it as its own user, or as a
    /// guest when the body names none (the App Clip reserves as a guest); a kiosk holds guest
    /// places at its café.
    public static func reservation(_ request: ReserveRequest, caller: Caller) throws(ServiceError) -> ReserveRequest {
        switch caller.role {
        case .phone:
            if let userId = request.userId { _ = try caller.actingUser(userId) }
        case .kiosk:
            try refuseIdentity(request.userId, nil, caller: caller, to: "hold a place")
            try caller.requireCafe(request.cafeId, "hold a place")
        default:
            break
        }
        return request
    }

    /// `order.claim` as `caller`: a phone moves only its own device's App Clip orders, and only to
    /// its own user (ids it leaves out are its key's).
    public static func claim(_ request: ClaimOrdersRequest, caller: Caller) throws(ServiceError) -> ClaimOrdersRequest {
        ClaimOrdersRequest(deviceId: try caller.actingDevice(required: request.deviceId), userId: try caller.actingUser(required: request.userId))
    }

    /// `order.cancel`, before the order is looked up: a phone cancels only as the customer, as
    /// its own user and device; a kiosk only as the customer (for a guest at its counter, naming
    /// nobody); a kitchen only as the kitchen.
    public static func cancellation(_ request: CancelOrderRequest, caller: Caller) throws(ServiceError) -> CancelOrderRequest {
        var scoped = request
        switch caller.role {
        case .phone:
            guard request.by == .customer else { throw caller.forbidden("cancel an order as the kitchen") }
            scoped.userId = try caller.actingUser(request.userId)
            scoped.deviceId = try caller.actingDevice(request.deviceId)
        case .kiosk:
            guard request.by == .customer else { throw caller.forbidden("cancel an order as the kitchen") }
            try refuseIdentity(request.userId, request.deviceId, caller: caller, to: "cancel an order")
        case .kitchen:
            guard request.by == .kitchen else { throw caller.forbidden("cancel an order as the customer") }
        default:
            break
        }
        return scoped
    }

    /// `order.cancel`, once the order is reached (`reach`): a kiosk cancels only the guest orders
    /// placed at a kiosk (an App Clip order belongs to the phone that placed it, an app order to its
    /// user). Whether the kiosk's word stands for the customer's: true for a kiosk.
    public static func cancelling(_ order: OrderSnapshot, caller: Caller) throws(ServiceError) -> Bool {
        guard caller.role == .kiosk else { return false }
        // `reach` refused any other order already; checked again where the kiosk's word is taken for the customer's.
        guard isKioskGuestOrder(order) else {
            throw caller.forbidden("cancel order \(Quoting.quoted(order.orderId)): a kiosk cancels only guest orders placed at a kiosk")
        }
        return true
    }

    /// The stored `order` (nil: none with that id) if `caller` may reach it to `what` ("read",
    /// "hand over", "cancel"): a phone its own orders (by user or device); a kiosk only the guest
    /// orders placed at a kiosk of its café, so a counter never reads, hands over or cancels a
    /// phone's order (nor learns its user and device); a kitchen every order at its café. Unknown
    /// and out of scope answer alike to them; the operator and the developer are told `order.unknown`.
    public static func reach(_ order: OrderSnapshot?, id: String, caller: Caller, to what: String) throws(ServiceError) -> OrderSnapshot {
        guard let principal = caller.principal else { return try OrderQueries.require(order, id: id) }
        let name = Quoting.quoted(id)
        switch principal.role {
        case .phone:
            let scope = "\(what) order \(name): it is not one of this phone's orders, or there is no such order"
            guard let order else { throw caller.forbidden(scope) }
            try caller.requireOwner(user: order.userId, device: order.deviceId, scope)
            return order
        case .kiosk:
            guard let order, order.cafeId == principal.cafeId, isKioskGuestOrder(order) else {
                throw caller.forbidden("\(what) order \(name): a kiosk reaches only guest orders placed at a kiosk of café \(Quoting.quoted(principal.cafeId ?? "")), "
                    + "and this is not one, or there is no such order")
            }
            return order
        case .kitchen:
            guard let order, order.cafeId == principal.cafeId else {
                throw caller.forbidden("\(what) order \(name): it is not an order at café \(Quoting.quoted(principal.cafeId ?? "")), or there is no such order")
            }
            return order
        case .operator:
            return try OrderQueries.require(order, id: id)
        default:
            // The op table keeps services and gateways out of every order op; refuse them here too.
            throw caller.forbidden("\(what) order \(name)")
        }
    }

    /// A guest order placed at a kiosk: the only kind a kiosk reaches (an App Clip order belongs to
    /// the phone that placed it, an app order to its user).
    static func isKioskGuestOrder(_ order: OrderSnapshot) -> Bool {
        order.channel == .kiosk && order.userId == nil && order.deviceId == nil
    }

    /// A kiosk acts for guests: a body naming a user or a device is refused.
    static func refuseIdentity(_ userId: String?, _ deviceId: String?, caller: Caller, to what: String) throws(ServiceError) {
        if let userId { throw caller.forbidden("\(what) for user \(Quoting.quoted(userId)); a kiosk acts for guests, never as a user") }
        if let deviceId { throw caller.forbidden("\(what) for device \(Quoting.quoted(deviceId)); a kiosk's guest orders belong to no device") }
    }
}
