import Foundation
import Messages
@testable import OrderServer
import Testing
import TestSupport

/// A phone known outside a café's approach area (region-monitor's `<cafe>.approach unsatisfied`,
/// decided from a fix) places an app order there: the order carries when, and the café's walk, so
/// the kitchen holds what the walk covers. Coming near, going unknown or withdrawing location
/// forgets it. Real SQLite, the harness's clock.
@Suite("Order service: customers known away")
struct OrderServerAwayTests {
    static func region(_ identifier: String, _ state: ConditionState, device: String = "phone-1", at: Timestamp) -> Envelope {
        let event = RegionEvent(monitor: "campus", identifier: identifier, deviceId: device, state: state, refinement: nil, flags: [], date: at)
        return Envelope(type: .regionEvent, source: "region-monitor", stream: "region", seq: 1, time: at, body: .region(event))
    }

    static func appOrder(_ h: OrderHarness, key: String, channel: OrderChannel = .app, device: String = "phone-1") throws -> OrderSnapshot {
        let reservation = try h.reserve(user: "user-\(key)")
        return try h.service.place(PlaceOrderRequest(idempotencyKey: key, channel: channel, userId: "user-\(key)", deviceId: device, cafeId: "caffe-macs",
                                                     reservationId: reservation.reservationId, items: [OrderItemRequest(itemId: "burger", quantity: 1)],
                                                     paymentToken: "tok_4242424242424242", locale: "en_US"), as: .developer).order
    }

    @Test("known outside: the order carries when and the café's walk; another café's decision, or another phone's, does not count")
    func carried() throws {
        let h = try OrderHarness()
        let seen = h.clock.now().adding(seconds: -120)
        try h.service.consume(Self.region("caffe-macs.approach", .unsatisfied, at: seen))
        try h.service.consume(Self.region("macs-coffee.approach", .unsatisfied, device: "phone-2", at: seen))
        let order = try Self.appOrder(h, key: "away-key-01")
        #expect(order.awayAt == seen && order.awayWalkSeconds == 131)
        #expect(try Self.appOrder(h, key: "away-key-02", device: "phone-2").awayAt == nil, "phone-2 was away from another café")
        #expect(try Self.appOrder(h, key: "away-key-03", device: "phone-3").awayAt == nil, "nothing known of phone-3")
    }

    @Test("coming near, going unknown, or withdrawing location forgets it", arguments: ["satisfied", "unknown", "purged"])
    func forgotten(how: String) throws {
        let h = try OrderHarness()
        try h.service.consume(Self.region("caffe-macs.approach", .unsatisfied, at: h.clock.now()))
        switch how {
        case "purged":
            let purged = LocationPurged(deviceId: "phone-1", reason: .denied, date: h.clock.now())
            try h.service.consume(Envelope(type: .regionPurged, source: "region-monitor", stream: "region", seq: 2, time: h.clock.now(), body: .purged(purged)))
        default:
            try h.service.consume(Self.region("caffe-macs.approach", ConditionState(rawValue: how)!, at: h.clock.now()))
        }
        #expect(try Self.appOrder(h, key: "near-key-01").awayAt == nil)
        #expect(try h.count("SELECT count(*) AS n FROM device_away") == 0)
    }

    @Test("a kiosk order never carries it: its customer is at the counter")
    func kiosk() throws {
        let h = try OrderHarness()
        try h.service.consume(Self.region("caffe-macs.approach", .unsatisfied, device: "kiosk-1", at: h.clock.now()))
        let order = try h.kioskOrder(try h.reserve()).order
        #expect(order.awayAt == nil && order.awayWalkSeconds == nil)
    }
}
