import Foundation
import Messages
@testable import OrderServer
import Policy
import ServiceRuntime
import Testing
import TestSupport

/// The keys the scope tests call as, as the registry would hold them: two phones (Ann's and
/// Bob's), a kiosk and a kitchen at Caffè Macs and at Macs Coffee, and the operator.
enum Keys {
    static func make(_ name: String, _ role: Role, device: String? = nil, user: String? = nil, cafe: String? = nil) -> Caller {
        Callers.make(name, role, device: device, user: user, cafe: cafe)
    }

    static let ann = make("phone-ann", .phone, device: "phone-ann", user: "ann")
    static let bob = make("phone-bob", .phone, device: "phone-bob", user: "bob")
    static let macsKiosk = make("kiosk-macs", .kiosk, cafe: "caffe-macs")
    static let coffeeKiosk = make("kiosk-coffee", .kiosk, cafe: "macs-coffee")
    static let macsKitchen = make("kitchen-macs", .kitchen, cafe: "caffe-macs")
    static let coffeeKitchen = make("kitchen-coffee", .kitchen, cafe: "macs-coffee")
    static let operatorKey = make("operator", .operator)
}

extension OrderHarness {
    /// One request through the router as `caller`, as the request socket would hand it over.
    func call<Body: Codable & Sendable, Result: Codable & Sendable>(_ op: String, _ body: Body, as caller: Caller, _: Result.Type) throws -> Result {
        let reply = host.requests.router.handle(Wire.encode(Request(op: op, body: body)), caller: caller)
        return try Wire.decodeReply(reply, body: Result.self).get()
    }

    /// The refusal `caller` gets for `op` (nil when it was answered), checking it changed nothing
    /// order-service keeps: orders, audit rows, places held, preferences, idempotency keys, events.
    func refusal<Body: Codable & Sendable>(_ op: String, _ body: Body, as caller: Caller) throws -> ServiceError? {
        let before = try written()
        let reply = host.requests.router.handle(Wire.encode(Request(op: op, body: body)), caller: caller)
        let error = try Wire.decodeReply(reply, body: Empty.self).error
        if error != nil { #expect(try written() == before, "a refused \(op) changed nothing") }
        return error
    }

    /// Expects `caller` refused `op` with auth.forbidden, nothing written; returns the message.
    @discardableResult
    func expectForbidden<Body: Codable & Sendable>(_ op: String, _ body: Body, as caller: Caller, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let error = try refusal(op, body, as: caller)
        #expect(error?.code == "auth.forbidden", "\(caller.name) \(op): \(String(describing: error))", sourceLocation: sourceLocation)
        return error?.message ?? ""
    }

    /// Everything order-service has written, as one comparable text.
    func written() throws -> String {
        let queries = [
            "SELECT order_id || ' ' || state || ' ' || IFNULL(user_id, '-') || ' ' || IFNULL(device_id, '-') AS r FROM orders ORDER BY order_id",
            "SELECT COUNT(*) || ' audit rows' AS r FROM order_audit",
            "SELECT reservation_id || ' ' || status || ' ' || IFNULL(user_id, '-') AS r FROM reservations ORDER BY reservation_id",
            "SELECT user_id || ' ' || kind || ' ' || IFNULL(cafe_id, '-') AS r FROM preferences ORDER BY user_id",
            "SELECT COUNT(*) || ' keys' AS r FROM idempotency",
            "SELECT COUNT(*) || ' events' AS r FROM outbox",
            "SELECT cafe_id || ' ' || item_id || ' ' || available AS r FROM menu_availability ORDER BY cafe_id, item_id",
        ]
        return try queries.flatMap { try host.db.query($0).map { $0.string("r") } }.joined(separator: "\n")
    }

    /// The next window at `cafeId` and a place held in it, as `caller`.
    func reserve(_ cafeId: String = "caffe-macs", user: String? = nil, as caller: Caller) throws -> ReservationView {
        let window = try requireValue(service.windows(WindowsRequest(cafeId: cafeId, locale: "en_US", count: 1)).windows.first)
        return try call(Op.windowReserve, ReserveRequest(cafeId: cafeId, start: window.start, userId: user, locale: "en_US"), as: caller, ReservationView.self)
    }

    /// An app order from `caller` (a phone) with its ids left out, on a place it held.
    func appOrder(as caller: Caller, key: String = "app-\(UUID().uuidString.prefix(8))") throws -> OrderView {
        let held = try reserve(as: caller)
        return try call(Op.orderPlace, Self.appRequest(key: key, reservation: held.reservationId), as: caller, OrderView.self)
    }

    static func appRequest(key: String, reservation: String, cafeId: String = "caffe-macs", userId: String? = nil, deviceId: String? = nil) -> PlaceOrderRequest {
        PlaceOrderRequest(idempotencyKey: key, channel: .app, userId: userId, deviceId: deviceId, cafeId: cafeId, reservationId: reservation,
                          items: [OrderItemRequest(itemId: "burger", quantity: 1)], paymentToken: "tok_4242424242424242", locale: "en_US")
    }

    /// A guest's kiosk order placed by `caller` (a kiosk) at its café (fries at Caffè Macs, a latte at Macs Coffee).
    func kioskGuestOrder(_ cafeId: String = "caffe-macs", as caller: Caller) throws -> OrderView {
        let item = cafeId == "macs-coffee" ? "latte" : "fries"
        let held = try reserve(cafeId, as: caller)
        return try call(Op.orderPlace, PlaceOrderRequest(idempotencyKey: "kiosk-\(UUID().uuidString.prefix(8))", channel: .kiosk, userId: nil, deviceId: nil,
                                                         cafeId: cafeId, reservationId: held.reservationId, items: [OrderItemRequest(itemId: item, quantity: 1)],
                                                         paymentToken: nil, locale: "en_US"), as: caller, OrderView.self)
    }

    /// Moves an order on to `ready`, as the kitchen's events would.
    func makeReady(_ orderId: String) throws {
        var order = try requireValue(try service.loadOrder(orderId))
        try host.events.write {
            order = try service.transition(order, to: .preparing, actor: .kitchen, reason: "started")
            order = try service.transition(order, to: .ready, actor: .kitchen, reason: "bumped")
        }
    }
}
