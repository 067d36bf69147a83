import Campus
import Foundation
import Messages
@testable import OrderServer
import ServiceRuntime
import Testing
import TestSupport

/// App Clip orders against region-monitor's answers: every refusal is typed and changes nothing;
/// payment is taken only after a "yes" for the code scanned at that café.
@Suite(.serialized)
struct OrderServerClipTests {
    static let macsCode = "https://clip.campus.example/caffe-macs/counter"

    func clipOrder(_ h: OrderHarness, _ reservation: ReservationView, url: String = macsCode, invocation: ClipInvocation = .appClipCode,
                   key: String = "clip-\(UUID().uuidString.prefix(8))") throws -> OrderView {
        try h.service.place(PlaceOrderRequest(idempotencyKey: key, channel: .appClip, userId: nil, deviceId: "clip-phone", cafeId: reservation.cafeId,
                                              reservationId: reservation.reservationId, items: [OrderItemRequest(itemId: "fries", quantity: 2)],
                                              paymentToken: "tok_4242424242424242", locale: "en_US",
                                              clip: ClipLaunch(url: url, invocation: invocation, acquiredAt: h.clock.now().adding(seconds: -20))))
    }

    @Test("refusals", arguments: [
        // (url, invocation, region's answer, region's reason, expected code, region asked)
        ("https://clip.campus.example/nowhere", ClipInvocation.appClipCode, LocationConfirmation.Result.yes, LocationConfirmation.Reason?.none, "appClip.doesNotMatch", false),
        ("https://clip.campus.example/parmer-lane-5/counter", .qrCode, .yes, nil, "appClip.doesNotMatch", false),
        (macsCode, .safari, .yes, nil, "appClip.disallowed", false),
        (macsCode, .messages, .yes, nil, "appClip.disallowed", false),
        (macsCode, .nfc, .disallowed, .authorizationDenied, "appClip.disallowed", true),
        (macsCode, .appClipCode, .disallowed, .approximateOnly, "appClip.disallowed", true),
        (macsCode, .appClipCode, .disallowed, .noFreshFix, "appClip.disallowed", true),
        (macsCode, .appClipCode, .no, nil, "appClip.notInRegion", true),
    ])
    func refusals(url: String, invocation: ClipInvocation, answer: LocationConfirmation.Result, reason: LocationConfirmation.Reason?, code: String, asked: Bool) throws {
        let h = try OrderHarness()
        h.region.confirmAnswer = .success(answer)
        h.region.confirmReason = reason
        let reservation = try h.reserve(user: nil)
        let error = try requireValue(serviceError { _ = try clipOrder(h, reservation, url: url, invocation: invocation) })
        #expect(error.code == code)
        if let reason { #expect(error.details?["reason"] == reason.rawValue) }
        #expect(h.region.confirmations.isEmpty == !asked)
        // Nothing changed: no order, the place still held, no event, the key unused.
        #expect(try h.count("SELECT COUNT(*) AS n FROM orders") == 0)
        #expect(try h.count("SELECT COUNT(*) AS n FROM reservations WHERE status = 'held'") == 1)
        #expect(try h.count("SELECT COUNT(*) AS n FROM outbox") == 0)
        #expect(try h.count("SELECT COUNT(*) AS n FROM idempotency") == 0)
    }

    @Test("region-monitor not answering: order.confirmationUnavailable, nothing charged, and a retry with the same key goes through")
    func confirmationUnavailable() throws {
        let h = try OrderHarness()
        let reservation = try h.reserve(user: nil)
        h.region.confirmAnswer = .failure(ServiceError(.clientTimeout, "no reply from region-monitor"))
        #expect(errorCode { _ = try clipOrder(h, reservation, key: "clip-retry-01") } == "order.confirmationUnavailable")
        #expect(try h.count("SELECT COUNT(*) AS n FROM orders") == 0)
        h.region.confirmAnswer = .success(.yes)
        let order = try clipOrder(h, reservation, key: "clip-retry-01")
        #expect(order.order.state == .accepted)
    }

    @Test("a confirmed clip order is accepted with its code; region-monitor was asked about that café and that scan")
    func confirmedOrder() throws {
        let h = try OrderHarness()
        let reservation = try h.reserve(user: nil)
        let view = try clipOrder(h, reservation, invocation: .nfc)
        #expect(view.order.state == .accepted && view.order.channel == .appClip && view.order.clipCode == Self.macsCode)
        #expect(view.order.userId == nil && view.order.deviceId == "clip-phone")
        #expect(view.total.formatted == "$7.90")
        let asked = try requireValue(h.region.confirmations.first)
        #expect(asked.cafeId == "caffe-macs" && asked.code == Self.macsCode && asked.deviceId == "clip-phone"
                && asked.acquiredAt == h.clock.now().adding(seconds: -20))
        let history = try h.service.history(OrderQuery(orderId: view.order.orderId))
        #expect(history.entries.last?.reason == "location confirmed at the scanned code; payment token recorded")
        #expect(try h.count("SELECT COUNT(*) AS n FROM orders WHERE payment_token = 'tok_4242424242424242'") == 1)
    }

    @Test("clip orders need a device, a clip and a payment token; other channels may not carry a clip", arguments: [
        ("noDevice", "request.invalidField"), ("noClip", "request.invalidField"), ("noToken", "order.paymentRequired"),
        ("badToken", "order.invalidPaymentToken"), ("kioskWithClip", "request.invalidField"), ("future", "request.invalidField"),
    ])
    func clipFields(variant: String, code: String) throws {
        let h = try OrderHarness()
        let reservation = try h.reserve(user: nil)
        var request = PlaceOrderRequest(idempotencyKey: "clip-fields-1", channel: .appClip, userId: nil, deviceId: "clip-phone", cafeId: "caffe-macs",
                                        reservationId: reservation.reservationId, items: [OrderItemRequest(itemId: "fries", quantity: 1)],
                                        paymentToken: "tok_4242424242424242", locale: "en_US",
                                        clip: ClipLaunch(url: Self.macsCode, invocation: .appClipCode, acquiredAt: h.clock.now()))
        switch variant {
        case "noDevice": request.deviceId = nil
        case "noClip": request.clip = nil
        case "noToken": request.paymentToken = nil
        case "badToken": request.paymentToken = "tok_short"
        case "kioskWithClip": request.channel = .kiosk
        default: request.clip?.acquiredAt = h.clock.now().adding(seconds: 3600)
        }
        #expect(errorCode { _ = try h.service.place(request) } == code)
        #expect(try h.count("SELECT COUNT(*) AS n FROM orders") == 0)
    }

    @Test("signing in moves the guest's clip orders to the account, once, with an audit row and an order.claimed event")
    func claim() throws {
        let h = try OrderHarness()
        let first = try clipOrder(h, try h.reserve(user: nil))
        let second = try clipOrder(h, try h.reserve(user: nil))
        _ = try h.kioskOrder(try h.reserve(user: nil))
        let reply = try h.service.claim(ClaimOrdersRequest(deviceId: "clip-phone", userId: "guest-now-dana"))
        #expect(Set(reply.orderIds) == [first.order.orderId, second.order.orderId])
        #expect(try h.service.loadOrder(first.order.orderId)?.userId == "guest-now-dana")
        #expect(try h.service.claim(ClaimOrdersRequest(deviceId: "clip-phone", userId: "guest-now-dana")).orderIds.isEmpty)
        #expect(try h.count("SELECT COUNT(*) AS n FROM outbox WHERE topic LIKE 'order.claimed.%'") == 2)
        let history = try h.service.history(OrderQuery(orderId: first.order.orderId))
        #expect(history.entries.last?.reason == "App Clip guest signed in as guest-now-dana")
        // Their menu now remembers the café they used.
        #expect(try h.service.menu(MenuRequest(userId: "guest-now-dana", deviceId: nil, locale: "en_US")).rule == .lastCafe)
    }
}
