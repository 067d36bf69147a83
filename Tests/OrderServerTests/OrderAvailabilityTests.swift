import Campus
import Foundation
import Messages
@testable import OrderServer
import Policy
import Testing
import TestSupport

/// Sold-out items ("86"): a kitchen marks an item unavailable at its café, the menu shows it,
/// an order with it is refused naming it and changing nothing, and putting it back works the
/// same way. Every change is stored and announced in one transaction; a repeat announces nothing.
@Suite(.serialized)
struct OrderAvailabilityTests {
    static func burgerOrder(_ h: OrderHarness, key: String) throws -> PlaceOrderRequest {
        let held = try h.reserve(as: Keys.macsKiosk)
        return PlaceOrderRequest(idempotencyKey: key, channel: .kiosk, userId: nil, deviceId: nil, cafeId: "caffe-macs", reservationId: held.reservationId,
                                 items: [OrderItemRequest(itemId: "fries", quantity: 1), OrderItemRequest(itemId: "burger", quantity: 1)],
                                 paymentToken: nil, locale: "en_US")
    }

    static func availabilityEvents(_ h: OrderHarness) throws -> [MenuAvailability] {
        try h.host.db.query("SELECT envelope FROM outbox WHERE stream = 'menu' ORDER BY seq").compactMap { row in
            guard case .availability(let a) = try Wire.decodeEnvelope(row.data("envelope")).body else { return nil }
            return a
        }
    }

    @Test("86 a burger: the menu shows it sold out, an order with it is refused naming it, and it comes back")
    func eightySix() throws {
        let h = try OrderHarness()
        let set = try h.call(Op.menuAvailabilitySet, MenuAvailabilityRequest(itemId: "burger", available: false, reason: "out of buns"), as: Keys.macsKitchen,
                             MenuAvailability.self)
        #expect(set.cafeId == "caffe-macs" && !set.available && set.by == "kitchen-macs" && set.reason == "out of buns")
        let menu = try h.call(Op.menuGet, MenuRequest(userId: "guest", deviceId: nil, locale: "en_US"), as: Keys.macsKiosk, MenuReply.self)
        #expect(menu.items.first { $0.id == "burger" }?.available == false)
        #expect(menu.items.filter { $0.id != "burger" }.allSatisfy { $0.available })

        let order = try Self.burgerOrder(h, key: "kiosk-86-0001")
        let refusal = try requireValue(try h.refusal(Op.orderPlace, order, as: Keys.macsKiosk))
        #expect(refusal.code == ErrorCode.itemUnavailable.rawValue && refusal.message.contains("items[1]") && refusal.message.contains("Grass-fed burger"),
                "\(refusal)")
        #expect(try h.count("SELECT COUNT(*) AS n FROM reservations WHERE status = 'held'") == 1, "the place is still held, not spent")

        // Again: already so, nothing stored or announced.
        _ = try h.call(Op.menuAvailabilitySet, MenuAvailabilityRequest(itemId: "burger", available: false), as: Keys.macsKitchen, MenuAvailability.self)
        #expect(try Self.availabilityEvents(h).count == 1)

        let back = try h.call(Op.menuAvailabilitySet, MenuAvailabilityRequest(cafeId: "caffe-macs", itemId: "burger", available: true), as: Keys.operatorKey,
                              MenuAvailability.self)
        #expect(back.available && back.by == "operator")
        #expect(try h.call(Op.orderPlace, order, as: Keys.macsKiosk, OrderView.self).order.lines.map(\.itemId) == ["fries", "burger"])
        let events = try Self.availabilityEvents(h)
        #expect(events.map(\.available) == [false, true])
        #expect(try h.host.db.query("SELECT topic FROM outbox WHERE stream = 'menu'").map { $0.string("topic") } == ["menu.availability.caffe-macs.", "menu.availability.caffe-macs."])
    }

    @Test("who may 86: a kitchen only at its own café, an operator naming one; nobody else; bad items and reasons refused")
    func refusals() throws {
        let h = try OrderHarness()
        let other = MenuAvailabilityRequest(cafeId: "caffe-macs", itemId: "burger", available: false)
        try h.expectForbidden(Op.menuAvailabilitySet, other, as: Keys.coffeeKitchen)
        try h.expectForbidden(Op.menuAvailabilitySet, other, as: Keys.ann)
        try h.expectForbidden(Op.menuAvailabilitySet, other, as: Keys.macsKiosk)
        let cases: [(MenuAvailabilityRequest, Caller, String)] = [
            (MenuAvailabilityRequest(itemId: "burger", available: false), Keys.operatorKey, "request.invalidField"),
            (MenuAvailabilityRequest(itemId: "latte", available: false), Keys.macsKitchen, "order.unknownItem"),
            (MenuAvailabilityRequest(cafeId: "nowhere", itemId: "burger", available: false), Keys.operatorKey, "order.unknownCafe"),
            (MenuAvailabilityRequest(itemId: "burger", available: false, reason: String(repeating: "x", count: 201)), Keys.macsKitchen, "request.invalidField"),
            (MenuAvailabilityRequest(itemId: "burger", available: false, reason: "bell\u{7}"), Keys.macsKitchen, "request.invalidField"),
        ]
        for (request, caller, code) in cases {
            #expect(try h.refusal(Op.menuAvailabilitySet, request, as: caller)?.code == code, "\(request)")
        }
        #expect(try Self.availabilityEvents(h).isEmpty)
    }
}
