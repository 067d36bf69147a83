import Campus
import Messages
import OrderCore
import Testing

@Suite("Order placement")
struct OrderPlacementTests {
    typealias F = OrderFixtures

    /// The channel rules, and which refusal comes first: café, locale, ids, channel, clip, items.
    @Test("field and channel rules", arguments: [
        ("kiosk, pay at pickup", F.place(.kiosk, deviceId: "kiosk-1"), nil),
        ("kiosk with a token", F.place(.kiosk, token: F.token), nil),
        ("kiosk with a bad token", F.place(.kiosk, token: "tok_short"), "order.invalidPaymentToken"),
        ("kiosk with a clip", F.place(.kiosk, clip: F.clip()), "request.invalidField"),
        ("app", F.place(.app, userId: "ann", token: F.token), nil),
        ("app without a user", F.place(.app, token: F.token), "request.invalidField"),
        ("app without a token", F.place(.app, userId: "ann"), "order.paymentRequired"),
        ("app with a clip", F.place(.app, userId: "ann", token: F.token, clip: F.clip()), "request.invalidField"),
        ("clip", F.place(.appClip, deviceId: "clip-phone", token: F.token, clip: F.clip()), nil),
        ("clip without a device", F.place(.appClip, token: F.token, clip: F.clip()), "request.invalidField"),
        ("clip without its launch", F.place(.appClip, deviceId: "clip-phone", token: F.token), "request.invalidField"),
        ("clip without a token", F.place(.appClip, deviceId: "clip-phone", clip: F.clip()), "order.paymentRequired"),
        ("unknown café before anything else", F.place(.app, cafeId: "atlantis"), "order.unknownCafe"),
        ("a bad locale before the channel's rules", F.place(.appClip, locale: "not a locale"), "request.invalidField"),
        ("a bad user id before the channel's rules", F.place(.appClip, userId: "a b"), "request.invalidField"),
        ("an item not on the menu, last", F.place(.kiosk, items: [OrderItemRequest(itemId: "brezn", quantity: 1)]), "order.unknownItem"),
    ] as [(String, PlaceOrderRequest, String?)])
    func check(label: String, request: PlaceOrderRequest, code: String?) throws {
        let catalog = try DemoCampus.load()
        #expect(errorCode { () throws(ServiceError) in try OrderPlacement.check(request, catalog: catalog) } == code, "\(label)")
    }

    @Test("a checked request is priced at its café")
    func checkedPrices() throws {
        let checked = try OrderPlacement.check(F.place(.kiosk), catalog: try DemoCampus.load())
        #expect(checked.cafe.id == "caffe-macs")
        #expect(checked.lines.map(\.quantity) == [2] && checked.total == 2 * 1095)
    }

    /// Who may spend a held place, and until when.
    @Test("reservation rules", arguments: [
        ("a guest's place, by anyone", F.reservation(), "bob" as String?, nil as String?),
        ("a guest's place, by a kiosk", F.reservation(), nil, nil),
        ("the holder's place", F.reservation(userId: "ann"), "ann", nil),
        ("another user's place", F.reservation(userId: "ann"), "bob", "order.notOwner"),
        ("a user's place, by a guest", F.reservation(userId: "ann"), nil, "order.notOwner"),
        ("already used", F.reservation(.used), nil, "order.unknownReservation"),
        ("released", F.reservation(.released), nil, "order.unknownReservation"),
        ("at another café", F.reservation(cafeId: "macs-coffee"), nil, "order.unknownReservation"),
    ] as [(String, ReservationRecord, String?, String?)])
    func spend(label: String, reservation: ReservationRecord, userId: String?, code: String?) throws {
        let cafe = try #require(try DemoCampus.load().cafe("caffe-macs"))
        #expect(errorCode { () throws(ServiceError) in try ReservationRules.spend(reservation, id: "res-1", cafe: cafe, userId: userId, now: .at(-601)) } == code, "\(label)")
    }

    @Test("a held place lapses at its expiry, not a millisecond later")
    func expiry() throws {
        let cafe = try #require(try DemoCampus.load().cafe("caffe-macs"))
        let held = F.reservation()
        #expect(errorCode { () throws(ServiceError) in try ReservationRules.spend(held, id: "res-1", cafe: cafe, userId: nil, now: held.expiresAt.adding(seconds: -0.001)) } == nil)
        #expect(errorCode { () throws(ServiceError) in try ReservationRules.spend(held, id: "res-1", cafe: cafe, userId: nil, now: held.expiresAt) } == "order.reservationExpired")
        #expect(errorCode { () throws(ServiceError) in try ReservationRules.spend(nil, id: "res-1", cafe: cafe, userId: nil, now: t0) } == "order.unknownReservation")
    }

    @Test("a placed order: inserted accepted on its window, with both audit rows and events, and the user's last café")
    func effects() throws {
        let request = F.place(.app, userId: "ann", token: F.token)
        let checked = try OrderPlacement.check(request, catalog: try DemoCampus.load())
        let now = Timestamp.at(-900)
        let effects = try OrderPlacement.decide(request, checked, reservation: F.reservation(userId: "ann"), orderId: "ord-9", now: now)
        #expect(effects.order.state == .accepted && effects.order.orderId == "ord-9" && effects.order.placedAt == now)
        #expect(effects.order.pickupStart == t0 && effects.order.pickupEnd == .at(600))
        #expect(effects.placement == OrderPlacementRecord(reservationId: "res-1", paymentToken: F.token))
        #expect(effects.audit.map(\.from) == [nil, .placed] && effects.audit.map(\.to) == [.placed, .accepted])
        #expect(effects.audit.map(\.actor) == [.customer, .system] && effects.audit.last?.reason == "payment token recorded")
        #expect(effects.events.map(\.type) == [.orderPlaced, .orderAccepted])
        #expect(effects.events.map(\.topic) == ["order.placed.caffe-macs.", "order.accepted.caffe-macs."])
        #expect(effects.events.first?.event.order.state == .placed && effects.events.first?.event.previous == nil)
        #expect(effects.lastCafe == LastCafe(userId: "ann", cafeId: "caffe-macs", at: now, keepsNewer: false))
        #expect(!effects.releasesReservation)
    }

    @Test("a refused reservation places nothing")
    func refusedReservation() throws {
        let request = F.place(.kiosk)
        let checked = try OrderPlacement.check(request, catalog: try DemoCampus.load())
        #expect(errorCode { () throws(ServiceError) in try OrderPlacement.decide(request, checked, reservation: F.reservation(.used), orderId: "ord-9", now: .at(-900)) }
                == "order.unknownReservation")
    }

    @Test("why an order was accepted as it was placed", arguments: [
        (F.place(.kiosk), "kiosk: pay at pickup"), (F.place(.kiosk, token: F.token), "payment token recorded"),
        (F.place(.app, userId: "ann", token: F.token), "payment token recorded"),
        (F.place(.appClip, deviceId: "p", token: F.token, clip: F.clip()), "location confirmed at the scanned code; payment token recorded"),
    ])
    func acceptance(request: PlaceOrderRequest, reason: String) {
        #expect(OrderPlacement.acceptance(request) == reason)
    }
}
