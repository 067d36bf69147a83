import Foundation
import Messages
@testable import OrderServer
import ServiceRuntime
import Testing
import TestSupport

/// order-service's preference, menu, window and placement ops through its router, as the keys
/// the request socket would hand over: each answers an allowed caller, and refuses with
/// auth.forbidden, writing nothing, a caller who acts for somebody else or outside its café.
@Suite(.serialized)
struct OrderScopeServerTests {
    @Test("preference.set and preference.get: a phone only its own user's; the operator reads anyone's and sets nobody's")
    func preferences() throws {
        let h = try OrderHarness()
        let set = PreferenceRequest(userId: "ann", preference: .cafe("macs-coffee"))
        #expect(try h.call(Op.preferenceSet, set, as: Keys.ann, PreferenceView.self).preference == .cafe("macs-coffee"))
        let message = try h.expectForbidden(Op.preferenceSet, PreferenceRequest(userId: "ann", preference: .closestToMe), as: Keys.bob)
        #expect(message.contains("act as user \"ann\""), "\(message)")
        try h.expectForbidden(Op.preferenceSet, PreferenceRequest(userId: "bob", preference: .closestToMe), as: Keys.operatorKey)
        try h.expectForbidden(Op.preferenceSet, PreferenceRequest(userId: "ann", preference: .closestToMe), as: Keys.macsKiosk)

        #expect(try h.call(Op.preferenceGet, PreferenceRequest(userId: "ann"), as: Keys.ann, PreferenceView.self).preference == .cafe("macs-coffee"))
        #expect(try h.call(Op.preferenceGet, PreferenceRequest(userId: "ann"), as: Keys.operatorKey, PreferenceView.self).preference == .cafe("macs-coffee"))
        try h.expectForbidden(Op.preferenceGet, PreferenceRequest(userId: "ann"), as: Keys.bob)
    }

    @Test("menu.get: a phone for its own user and device; a kiosk gets its café's menu and learns nothing of the user it names")
    func menus() throws {
        let h = try OrderHarness()
        try h.host.events.write { try h.service.store.setPreference(.cafe("macs-coffee"), of: "ann") }
        let own = try h.call(Op.menuGet, MenuRequest(userId: "ann", deviceId: nil, locale: "en_US"), as: Keys.ann, MenuReply.self)
        #expect(own.cafe.id == "macs-coffee" && own.rule == .preferredCafe)
        #expect(try h.call(Op.menuGet, MenuRequest(userId: "ann", deviceId: nil, locale: "en_US"), as: Keys.operatorKey, MenuReply.self).cafe.id == "macs-coffee")
        try h.expectForbidden(Op.menuGet, MenuRequest(userId: "ann", deviceId: nil, locale: "en_US"), as: Keys.bob)
        try h.expectForbidden(Op.menuGet, MenuRequest(userId: "bob", deviceId: "phone-ann", locale: "en_US"), as: Keys.bob)
        try h.expectForbidden(Op.menuGet, MenuRequest(userId: "ann", deviceId: nil, locale: "en_US"), as: Keys.macsKitchen)
        // A kiosk naming Ann gets its own café's menu, not Ann's preferred café.
        let kiosk = try h.call(Op.menuGet, MenuRequest(userId: "ann", deviceId: nil, locale: "en_US"), as: Keys.macsKiosk, MenuReply.self)
        #expect(kiosk.cafe.id == "caffe-macs")
        // A phone's left-out device is its own: the device's nearest beacon decides for it.
        #expect(h.region.nearestCalls == 0)
        _ = try h.call(Op.menuGet, MenuRequest(userId: "bob", deviceId: nil, locale: "en_US"), as: Keys.bob, MenuReply.self)
        #expect(h.region.nearestCalls == 1, "region-monitor was asked about the phone's own device")
    }

    @Test("windows.list: a kiosk only at its café; phones and the operator anywhere")
    func windows() throws {
        let h = try OrderHarness()
        let request = WindowsRequest(cafeId: "macs-coffee", locale: "en_US", count: 2)
        #expect(try h.call(Op.windowsList, request, as: Keys.coffeeKiosk, WindowsReply.self).windows.count == 2)
        #expect(try h.call(Op.windowsList, request, as: Keys.ann, WindowsReply.self).cafeId == "macs-coffee")
        #expect(try h.call(Op.windowsList, request, as: Keys.operatorKey, WindowsReply.self).cafeId == "macs-coffee")
        try h.expectForbidden(Op.windowsList, request, as: Keys.macsKiosk)
        try h.expectForbidden(Op.windowsList, request, as: Keys.macsKitchen)
    }

    @Test("window.reserve: a phone as itself (or a guest's place), a kiosk a guest's place at its café; nobody holds one in another's name")
    func reserve() throws {
        let h = try OrderHarness()
        let start = try requireValue(h.service.windows(WindowsRequest(cafeId: "caffe-macs", locale: "en_US", count: 1)).windows.first).start
        func request(_ user: String?, cafe: String = "caffe-macs") -> ReserveRequest { ReserveRequest(cafeId: cafe, start: start, userId: user, locale: "en_US") }
        _ = try h.call(Op.windowReserve, request("ann"), as: Keys.ann, ReservationView.self)
        _ = try h.call(Op.windowReserve, request(nil), as: Keys.ann, ReservationView.self)
        _ = try h.call(Op.windowReserve, request(nil), as: Keys.macsKiosk, ReservationView.self)
        #expect(try h.count("SELECT COUNT(*) AS n FROM reservations WHERE user_id = 'ann'") == 1)
        #expect(try h.count("SELECT COUNT(*) AS n FROM reservations WHERE user_id IS NULL") == 2)
        try h.expectForbidden(Op.windowReserve, request("ann"), as: Keys.bob)
        try h.expectForbidden(Op.windowReserve, request("ann"), as: Keys.macsKiosk)
        try h.expectForbidden(Op.windowReserve, request(nil), as: Keys.coffeeKiosk)
        try h.expectForbidden(Op.windowReserve, request("ann"), as: Keys.operatorKey)
    }

    @Test("order.place: a phone's order is its own user's and device's; naming another, or the kiosk channel, is refused")
    func phonePlaces() throws {
        let h = try OrderHarness()
        let order = try h.appOrder(as: Keys.ann, key: "ann-app-0001").order
        #expect(order.userId == "ann" && order.deviceId == "phone-ann", "left-out ids come from the key")
        let held = try h.reserve(as: Keys.bob)
        try h.expectForbidden(Op.orderPlace, OrderHarness.appRequest(key: "bob-as-ann1", reservation: held.reservationId, userId: "ann"), as: Keys.bob)
        try h.expectForbidden(Op.orderPlace, OrderHarness.appRequest(key: "bob-as-ann2", reservation: held.reservationId, deviceId: "phone-ann"), as: Keys.bob)
        var kiosk = OrderHarness.appRequest(key: "bob-kiosk01", reservation: held.reservationId)
        kiosk.channel = .kiosk
        try h.expectForbidden(Op.orderPlace, kiosk, as: Keys.bob)
        // Bob retrying under Ann's idempotency key with Ann's body gets a conflict, never Ann's order.
        let retry = try h.refusal(Op.orderPlace, OrderHarness.appRequest(key: "ann-app-0001", reservation: held.reservationId), as: Keys.bob)
        #expect(retry?.code == "order.idempotencyConflict", "\(String(describing: retry))")
    }

    @Test("order.place: a kiosk places guest orders at its café; a user's order, another café's and the operator's or kitchen's are refused")
    func kioskPlaces() throws {
        let h = try OrderHarness()
        let order = try h.kioskGuestOrder(as: Keys.macsKiosk).order
        #expect(order.userId == nil && order.deviceId == nil && order.channel == .kiosk)
        let held = try h.reserve(as: Keys.macsKiosk)
        var guest = PlaceOrderRequest(idempotencyKey: "kiosk-scope-1", channel: .kiosk, userId: nil, deviceId: nil, cafeId: "caffe-macs",
                                      reservationId: held.reservationId, items: [OrderItemRequest(itemId: "fries", quantity: 1)], paymentToken: nil, locale: "en_US")
        try h.expectForbidden(Op.orderPlace, guest, as: Keys.coffeeKiosk)
        try h.expectForbidden(Op.orderPlace, guest, as: Keys.macsKitchen)
        guest.userId = "ann"
        try h.expectForbidden(Op.orderPlace, guest, as: Keys.macsKiosk)
        // The operator may read anything but never acts as a user: placing an order as Ann is refused.
        try h.expectForbidden(Op.orderPlace, OrderHarness.appRequest(key: "operator-ann", reservation: held.reservationId, userId: "ann"), as: Keys.operatorKey)
        try h.expectForbidden(Op.orderPlace, OrderHarness.appRequest(key: "kiosk-app-01", reservation: held.reservationId, userId: "ann"), as: Keys.macsKiosk)
    }

    @Test("order.place from the App Clip: location is confirmed for the phone's own device, and the order stays a guest's to claim")
    func clipPlaces() throws {
        let h = try OrderHarness()
        let held = try h.reserve(as: Keys.ann)
        var clip = PlaceOrderRequest(idempotencyKey: "ann-clip-001", channel: .appClip, userId: nil, deviceId: nil, cafeId: "caffe-macs",
                                     reservationId: held.reservationId, items: [OrderItemRequest(itemId: "fries", quantity: 1)], paymentToken: "tok_4242424242424242",
                                     locale: "en_US", clip: ClipLaunch(url: "https://clip.campus.example/caffe-macs/counter", invocation: .appClipCode,
                                                                       acquiredAt: h.clock.now().adding(seconds: -20)))
        clip.deviceId = "phone-bob"
        try h.expectForbidden(Op.orderPlace, clip, as: Keys.ann)
        #expect(h.region.confirmations.isEmpty, "nobody asked where Bob's phone was")
        clip.deviceId = nil
        let order = try h.call(Op.orderPlace, clip, as: Keys.ann, OrderView.self).order
        #expect(order.deviceId == "phone-ann" && order.userId == nil)
        #expect(h.region.confirmations.map(\.deviceId) == ["phone-ann"])
    }
}
