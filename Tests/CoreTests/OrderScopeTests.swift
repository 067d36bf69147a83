import Messages
import OrderCore
import Policy
import Testing
import TestSupport

/// The callers the scope tests act as: keys as the registry would hold them.
extension Callers {
    static let annPhone = make("phone-ann", .phone, device: "phone-1", user: "ann")
    static let bobPhone = make("phone-bob", .phone, device: "phone-2", user: "bob")
    static let macsKiosk = make("kiosk-macs", .kiosk, cafe: "caffe-macs")
    static let parmerKiosk = make("kiosk-parmer", .kiosk, cafe: "parmer-lane-5")
    static let macsKitchen = make("kitchen-macs", .kitchen, cafe: "caffe-macs")
    static let parmerKitchen = make("kitchen-parmer", .kitchen, cafe: "parmer-lane-5")
    static let operatorKey = make("operator", .operator)
    static let notificationService = make("notification-service", .service, service: "notification-service")
}

/// OrderScope's rules, table-driven: who may act on whose orders, decided from the key. Every
/// refusal is `auth.forbidden`; what is allowed comes back with the caller's own ids filled in.
struct OrderScopeTests {
    typealias F = OrderFixtures
    typealias C = Callers

    @Test("order.place: a phone as itself through the app or the clip; a kiosk guest orders at its café", arguments: [
        ("phone, ids left out: its own", C.annPhone, F.place(.app, token: F.token), "ann/phone-1"),
        ("phone naming itself", C.annPhone, F.place(.app, userId: "ann", deviceId: "phone-1", token: F.token), "ann/phone-1"),
        ("phone naming another user", C.annPhone, F.place(.app, userId: "bob", token: F.token), "forbidden"),
        ("phone naming another device", C.annPhone, F.place(.app, deviceId: "phone-2", token: F.token), "forbidden"),
        ("phone clip order stays a guest's", C.annPhone, F.place(.appClip, token: F.token, clip: F.clip()), "-/phone-1"),
        ("phone clip order naming itself", C.annPhone, F.place(.appClip, userId: "ann", token: F.token, clip: F.clip()), "ann/phone-1"),
        ("phone clip order for another device", C.annPhone, F.place(.appClip, deviceId: "phone-2", token: F.token, clip: F.clip()), "forbidden"),
        ("phone placing a kiosk order", C.annPhone, F.place(.kiosk), "forbidden"),
        ("kiosk guest order at its café", C.macsKiosk, F.place(.kiosk), "-/-"),
        ("kiosk at another café", C.parmerKiosk, F.place(.kiosk), "forbidden"),
        ("kiosk naming a user", C.macsKiosk, F.place(.kiosk, userId: "ann"), "forbidden"),
        ("kiosk naming a device", C.macsKiosk, F.place(.kiosk, deviceId: "phone-1"), "forbidden"),
        ("kiosk placing an app order", C.macsKiosk, F.place(.app, userId: "ann", token: F.token), "forbidden"),
        ("developer: as the body says", Caller.developer, F.place(.app, userId: "bob", deviceId: "phone-9", token: F.token), "bob/phone-9"),
    ])
    func placement(_ name: String, caller: Caller, request: PlaceOrderRequest, expected: String) {
        let outcome = Result { () throws(ServiceError) in try OrderScope.placement(request, caller: caller) }
        switch outcome {
        case .success(let scoped): #expect("\(scoped.userId ?? "-")/\(scoped.deviceId ?? "-")" == expected, "\(name)")
        case .failure(let error): #expect(error.code == "auth.forbidden" && expected == "forbidden", "\(name): \(error)")
        }
    }

    @Test("order.cancel: a phone as the customer for itself, a kiosk as the customer naming nobody, a kitchen as the kitchen", arguments: [
        ("phone as customer", C.annPhone, CancelOrderRequest(orderId: "ord-1", by: .customer), true),
        ("phone naming the owner's user", C.bobPhone, CancelOrderRequest(orderId: "ord-1", by: .customer, userId: "ann"), false),
        ("phone naming the owner's device", C.bobPhone, CancelOrderRequest(orderId: "ord-1", by: .customer, deviceId: "phone-1"), false),
        ("phone as the kitchen", C.annPhone, CancelOrderRequest(orderId: "ord-1", by: .kitchen, reason: "out of buns"), false),
        ("kiosk as customer", C.macsKiosk, CancelOrderRequest(orderId: "ord-1", by: .customer), true),
        ("kiosk naming a user", C.macsKiosk, CancelOrderRequest(orderId: "ord-1", by: .customer, userId: "ann"), false),
        ("kiosk as the kitchen", C.macsKiosk, CancelOrderRequest(orderId: "ord-1", by: .kitchen, reason: "x"), false),
        ("kitchen as the kitchen", C.macsKitchen, CancelOrderRequest(orderId: "ord-1", by: .kitchen, reason: "out of buns"), true),
        ("kitchen as the customer", C.macsKitchen, CancelOrderRequest(orderId: "ord-1", by: .customer, userId: "ann"), false),
    ])
    func cancellation(_ name: String, caller: Caller, request: CancelOrderRequest, allowed: Bool) {
        let error = refusal { () throws(ServiceError) in try OrderScope.cancellation(request, caller: caller) }
        #expect(allowed ? error == nil : error?.code == "auth.forbidden", "\(name): \(String(describing: error))")
    }

    @Test("a phone cancelling fills its own ids, so the customer check is against its key")
    func phoneCancelFillsIds() throws {
        let scoped = try OrderScope.cancellation(CancelOrderRequest(orderId: "ord-1", by: .customer), caller: C.annPhone)
        #expect(scoped.userId == "ann" && scoped.deviceId == "phone-1")
    }

    @Test("reaching an order: a phone its own (by user or device), a kiosk its café's guest orders, a kitchen its café's; unknown and another's answer alike", arguments: [
        ("owner by user", C.make("ann-tablet", .phone, device: "tablet-9", user: "ann"), F.order(.accepted), true),
        ("owner by device", C.make("guest", .phone, device: "phone-1", user: "guest-1"), F.order(.accepted, userId: nil), true),
        ("another phone", C.bobPhone, F.order(.accepted), false),
        ("kiosk, a guest order at the café", C.macsKiosk, F.order(.accepted, channel: .kiosk, userId: nil, deviceId: nil), true),
        ("kiosk, a phone's app order at the café", C.macsKiosk, F.order(.accepted), false),
        ("kiosk, a guest's App Clip order at the café", C.macsKiosk, F.order(.accepted, channel: .appClip, userId: nil), false),
        ("kiosk of another café, a guest order", C.parmerKiosk, F.order(.accepted, channel: .kiosk, userId: nil, deviceId: nil), false),
        ("kitchen at the café", C.macsKitchen, F.order(.accepted), true),
        ("kitchen of another café", C.parmerKitchen, F.order(.accepted), false),
        ("operator", C.operatorKey, F.order(.accepted), true),
        ("a service", C.notificationService, F.order(.accepted), false),
    ])
    func reach(_ name: String, caller: Caller, order: OrderSnapshot, allowed: Bool) {
        let error = refusal { () throws(ServiceError) in try OrderScope.reach(order, id: order.orderId, caller: caller, to: "read") }
        #expect(allowed ? error == nil : error?.code == "auth.forbidden", "\(name): \(String(describing: error))")
        if !allowed, caller.role != .service {
            // The same words for an id that names no order: the refusal does not say which it was.
            let unknown = refusal { () throws(ServiceError) in try OrderScope.reach(nil, id: order.orderId, caller: caller, to: "read") }
            #expect(unknown == error, "\(name)")
        }
    }

    @Test("the operator and the developer are told an order does not exist")
    func unknownToOperator() {
        #expect(refusal { () throws(ServiceError) in try OrderScope.reach(nil, id: "ord-x", caller: C.operatorKey, to: "read") }?.code == "order.unknown")
        #expect(refusal { () throws(ServiceError) in try OrderScope.reach(nil, id: "ord-x", caller: .developer, to: "read") }?.code == "order.unknown")
    }

    @Test("a kiosk cancels only guest orders placed at a kiosk", arguments: [
        (F.order(.accepted, channel: .kiosk, userId: nil, deviceId: nil), true),
        (F.order(.accepted, channel: .app), false),
        (F.order(.accepted, channel: .appClip, userId: nil), false),
    ])
    func kioskCancels(order: OrderSnapshot, allowed: Bool) {
        let outcome = Result { () throws(ServiceError) in try OrderScope.cancelling(order, caller: C.macsKiosk) }
        #expect((try? outcome.get()) == (allowed ? true : nil))
        #expect(refusal { () throws(ServiceError) in try OrderScope.cancelling(order, caller: C.annPhone) } == nil)
    }

    @Test("window.reserve: a phone only as itself or as a guest; a kiosk a guest's place at its café", arguments: [
        ("phone, no user: a guest's place", C.annPhone, ReserveRequest(cafeId: "caffe-macs", start: t0, userId: nil, locale: "en_US"), true),
        ("phone as itself", C.annPhone, ReserveRequest(cafeId: "caffe-macs", start: t0, userId: "ann", locale: "en_US"), true),
        ("phone as another", C.annPhone, ReserveRequest(cafeId: "caffe-macs", start: t0, userId: "bob", locale: "en_US"), false),
        ("kiosk at its café", C.macsKiosk, ReserveRequest(cafeId: "caffe-macs", start: t0, userId: nil, locale: "en_US"), true),
        ("kiosk at another", C.parmerKiosk, ReserveRequest(cafeId: "caffe-macs", start: t0, userId: nil, locale: "en_US"), false),
        ("kiosk for a user", C.macsKiosk, ReserveRequest(cafeId: "caffe-macs", start: t0, userId: "ann", locale: "en_US"), false),
    ])
    func reservation(_ name: String, caller: Caller, request: ReserveRequest, allowed: Bool) {
        let outcome = Result { () throws(ServiceError) in try OrderScope.reservation(request, caller: caller) }
        switch outcome {
        case .success(let scoped): #expect(allowed && scoped == request, "\(name): a place is held as the body says once allowed")
        case .failure(let error): #expect(!allowed && error.code == "auth.forbidden", "\(name): \(error)")
        }
    }

    @Test("order.claim moves only this phone's device's orders, only to its user")
    func claim() {
        #expect((try? OrderScope.claim(ClaimOrdersRequest(deviceId: "phone-1", userId: "ann"), caller: C.annPhone)) != nil)
        #expect(refusal { () throws(ServiceError) in try OrderScope.claim(ClaimOrdersRequest(deviceId: "phone-2", userId: "ann"), caller: C.annPhone) }?.code == "auth.forbidden")
        #expect(refusal { () throws(ServiceError) in try OrderScope.claim(ClaimOrdersRequest(deviceId: "phone-1", userId: "bob"), caller: C.annPhone) }?.code == "auth.forbidden")
    }
}
