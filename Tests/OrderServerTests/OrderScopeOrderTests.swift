import Foundation
import Messages
@testable import OrderServer
import ServiceRuntime
import Testing
import TestSupport

/// The ops on one order through order-service's router, as the keys the request socket would
/// hand over: a phone reaches only its own orders, a kiosk and a kitchen only their café's; an
/// order that does not exist and somebody else's get the same refusal; nothing is written.
@Suite(.serialized)
struct OrderScopeOrderTests {
    @Test("order.get: the owner's phone, the café's kitchen, the operator; another phone, the café's kiosk, another café refused alike for real and unknown ids")
    func get() throws {
        let h = try OrderHarness()
        let order = try h.appOrder(as: Keys.ann).order
        let query = OrderQuery(orderId: order.orderId)
        for caller in [Keys.ann, Keys.macsKitchen, Keys.operatorKey] {
            #expect(try h.call(Op.orderGet, query, as: caller, OrderView.self).order.orderId == order.orderId, "\(caller.name)")
        }
        // Ann on another of her devices reaches it by her user.
        #expect(try h.call(Op.orderGet, query, as: Keys.make("ann-tablet", .phone, device: "tablet-ann", user: "ann"), OrderView.self).order.userId == "ann")
        // The café's kiosk reads its own guest orders only, never a phone's (its user and device).
        for caller in [Keys.bob, Keys.macsKiosk, Keys.coffeeKiosk, Keys.coffeeKitchen] {
            let another = try h.expectForbidden(Op.orderGet, query, as: caller)
            let unknown = try h.expectForbidden(Op.orderGet, OrderQuery(orderId: "ord_nothing"), as: caller)
            #expect(another.replacingOccurrences(of: order.orderId, with: "ord_nothing") == unknown, "the refusal does not tell which: \(another)")
        }
        #expect(try h.refusal(Op.orderGet, OrderQuery(orderId: "ord_nothing"), as: Keys.operatorKey)?.code == "order.unknown")
        let guest = try h.kioskGuestOrder(as: Keys.macsKiosk).order
        #expect(try h.call(Op.orderGet, OrderQuery(orderId: guest.orderId), as: Keys.macsKiosk, OrderView.self).order.orderId == guest.orderId)
        try h.expectForbidden(Op.orderGet, OrderQuery(orderId: guest.orderId), as: Keys.coffeeKiosk)
    }

    @Test("order.pickup: the café's kitchen hands any ready order there over, its kiosk only a guest's; another café's cannot")
    func pickup() throws {
        let h = try OrderHarness()
        let first = try h.appOrder(as: Keys.ann).order
        let second = try h.kioskGuestOrder(as: Keys.macsKiosk).order
        try h.makeReady(first.orderId)
        try h.makeReady(second.orderId)
        try h.expectForbidden(Op.orderPickup, OrderQuery(orderId: first.orderId), as: Keys.coffeeKitchen)
        try h.expectForbidden(Op.orderPickup, OrderQuery(orderId: first.orderId), as: Keys.coffeeKiosk)
        try h.expectForbidden(Op.orderPickup, OrderQuery(orderId: first.orderId), as: Keys.macsKiosk)
        try h.expectForbidden(Op.orderPickup, OrderQuery(orderId: second.orderId), as: Keys.coffeeKiosk)
        try h.expectForbidden(Op.orderPickup, OrderQuery(orderId: first.orderId), as: Keys.ann)
        try h.expectForbidden(Op.orderPickup, OrderQuery(orderId: first.orderId), as: Keys.operatorKey)
        #expect(try h.service.loadOrder(first.orderId)?.state == .ready, "the refused hand-overs changed nothing")
        #expect(try h.call(Op.orderPickup, OrderQuery(orderId: first.orderId), as: Keys.macsKitchen, OrderView.self).order.state == .pickedUp)
        #expect(try h.call(Op.orderPickup, OrderQuery(orderId: second.orderId), as: Keys.macsKiosk, OrderView.self).order.state == .pickedUp)
    }

    @Test("order.cancel by a phone: its own order as the customer; another's is refused whatever the body names, and so is cancelling as the kitchen")
    func phoneCancels() throws {
        let h = try OrderHarness()
        let annOrder = try h.appOrder(as: Keys.ann).order
        let id = annOrder.orderId
        // Bob names Ann's user, then her device, then claims to be the kitchen.
        try h.expectForbidden(Op.orderCancel, CancelOrderRequest(orderId: id, by: .customer, userId: "ann"), as: Keys.bob)
        try h.expectForbidden(Op.orderCancel, CancelOrderRequest(orderId: id, by: .customer, deviceId: "phone-ann"), as: Keys.bob)
        try h.expectForbidden(Op.orderCancel, CancelOrderRequest(orderId: id, by: .customer), as: Keys.bob)
        try h.expectForbidden(Op.orderCancel, CancelOrderRequest(orderId: id, by: .kitchen, reason: "out of buns"), as: Keys.bob)
        // Ann herself may not cancel as the kitchen either (that would pass the preparing rule).
        try h.expectForbidden(Op.orderCancel, CancelOrderRequest(orderId: id, by: .kitchen, reason: "changed my mind"), as: Keys.ann)
        try h.expectForbidden(Op.orderCancel, CancelOrderRequest(orderId: id, by: .customer), as: Keys.operatorKey)
        #expect(try h.service.loadOrder(id)?.state == .accepted)
        let cancelled = try h.call(Op.orderCancel, CancelOrderRequest(orderId: id, by: .customer), as: Keys.ann, OrderView.self)
        #expect(cancelled.order.state == .cancelled)
        #expect(try h.service.history(OrderQuery(orderId: id)).entries.last?.actor == "customer")
    }

    @Test("order.cancel at the counter: a kiosk a guest's kiosk order at its café; a kitchen any order at its café, as the kitchen")
    func counterCancels() throws {
        let h = try OrderHarness()
        let guest = try h.kioskGuestOrder(as: Keys.macsKiosk).order
        let app = try h.appOrder(as: Keys.ann).order
        try h.expectForbidden(Op.orderCancel, CancelOrderRequest(orderId: guest.orderId, by: .customer), as: Keys.coffeeKiosk)
        try h.expectForbidden(Op.orderCancel, CancelOrderRequest(orderId: guest.orderId, by: .kitchen, reason: "no fries"), as: Keys.macsKiosk)
        let appMessage = try h.expectForbidden(Op.orderCancel, CancelOrderRequest(orderId: app.orderId, by: .customer), as: Keys.macsKiosk)
        #expect(appMessage.contains("only guest orders"), "\(appMessage)")
        #expect(try h.call(Op.orderCancel, CancelOrderRequest(orderId: guest.orderId, by: .customer), as: Keys.macsKiosk, OrderView.self).order.state == .cancelled)

        try h.expectForbidden(Op.orderCancel, CancelOrderRequest(orderId: app.orderId, by: .kitchen, reason: "out of buns"), as: Keys.coffeeKitchen)
        try h.expectForbidden(Op.orderCancel, CancelOrderRequest(orderId: app.orderId, by: .customer, userId: "ann"), as: Keys.macsKitchen)
        let byKitchen = try h.call(Op.orderCancel, CancelOrderRequest(orderId: app.orderId, by: .kitchen, reason: "out of buns"), as: Keys.macsKitchen, OrderView.self)
        #expect(byKitchen.order.state == .cancelled)
    }

    @Test("order.history: the owner's phone and the operator; another phone refused")
    func history() throws {
        let h = try OrderHarness()
        let order = try h.appOrder(as: Keys.ann).order
        let query = OrderQuery(orderId: order.orderId)
        #expect(try h.call(Op.orderHistory, query, as: Keys.ann, OrderHistory.self).entries.map(\.to) == [.placed, .accepted])
        #expect(try h.call(Op.orderHistory, query, as: Keys.operatorKey, OrderHistory.self).orderId == order.orderId)
        try h.expectForbidden(Op.orderHistory, query, as: Keys.bob)
        try h.expectForbidden(Op.orderHistory, query, as: Keys.macsKitchen)
    }

    @Test("order.claim: a phone moves its own device's App Clip orders to its own user; another device's orders and another user stay refused")
    func claim() throws {
        let h = try OrderHarness()
        let held = try h.reserve(as: Keys.ann)
        let clip = PlaceOrderRequest(idempotencyKey: "ann-clip-claim", channel: .appClip, userId: nil, deviceId: nil, cafeId: "caffe-macs",
                                     reservationId: held.reservationId, items: [OrderItemRequest(itemId: "fries", quantity: 1)], paymentToken: "tok_4242424242424242",
                                     locale: "en_US", clip: ClipLaunch(url: "https://clip.campus.example/caffe-macs/counter", invocation: .appClipCode,
                                                                       acquiredAt: h.clock.now().adding(seconds: -20)))
        let order = try h.call(Op.orderPlace, clip, as: Keys.ann, OrderView.self).order
        #expect(order.userId == nil)
        // Bob claims the orders of Ann's phone to his account; Ann's phone claims them for Bob.
        try h.expectForbidden(Op.orderClaim, ClaimOrdersRequest(deviceId: "phone-ann", userId: "bob"), as: Keys.bob)
        try h.expectForbidden(Op.orderClaim, ClaimOrdersRequest(deviceId: "phone-ann", userId: "bob"), as: Keys.ann)
        try h.expectForbidden(Op.orderClaim, ClaimOrdersRequest(deviceId: "phone-ann", userId: "ann"), as: Keys.operatorKey)
        #expect(try h.service.loadOrder(order.orderId)?.userId == nil)
        let claimed = try h.call(Op.orderClaim, ClaimOrdersRequest(deviceId: "phone-ann", userId: "ann"), as: Keys.ann, ClaimOrdersReply.self)
        #expect(claimed.orderIds == [order.orderId])
        #expect(try h.service.loadOrder(order.orderId)?.userId == "ann")
    }
}
