import Campus
import Foundation
import Messages
@testable import OrderServer
import ServiceRuntime
import Testing
import TestSupport

/// order-service's time rules with the clock in the test's hand: no-shows after the window and
/// the café's grace, held places that lapse, idempotency keys kept at least 24 hours, past and
/// closed windows, and the menu's "nearest open café". Real SQLite, no sleeping.
@Suite(.serialized)
struct OrderServerClockTests {
    @Test("a ready order becomes a no-show only once its window and the café's grace have passed")
    func noShowAfterGrace() throws {
        let h = try OrderHarness()
        let order = try h.kioskOrder(try h.reserve()).order
        var snapshot = try requireValue(try h.service.loadOrder(order.orderId))
        try h.host.events.write {
            snapshot = try h.service.transition(snapshot, to: .preparing, actor: .kitchen, reason: "started")
            snapshot = try h.service.transition(snapshot, to: .ready, actor: .kitchen, reason: "bumped")
        }
        let grace = Double(try requireValue(h.catalog.cafe("caffe-macs")).pickup.graceMinutes * 60)
        h.clock.set(order.pickupEnd.adding(seconds: grace))
        try h.service.markNoShows()
        #expect(try h.service.loadOrder(order.orderId)?.state == .ready, "exactly at the end of the grace period it is still collectable")
        h.clock.advance(seconds: 1)
        try h.service.markNoShows()
        #expect(try h.service.loadOrder(order.orderId)?.state == .noShow)
        let history = try h.service.history(OrderQuery(orderId: order.orderId))
        #expect(history.entries.map(\.to) == [.placed, .accepted, .preparing, .ready, .noShow])
        #expect(history.entries.last?.actor == "system" && history.entries.last?.at == h.clock.now())
        // An order still being made when its window passes is the kitchen's, not a no-show.
        let late = try h.kioskOrder(try h.reserve())
        h.clock.advance(seconds: 24 * 3600)
        try h.service.markNoShows()
        #expect(try h.service.loadOrder(late.order.orderId)?.state == .accepted)
        // It is escalated instead, once: order.overdue with an audit row, never closed.
        let escalated = try requireValue(try h.service.loadOrder(late.order.orderId))
        #expect(escalated.overdueAt == h.clock.now())
        h.clock.advance(seconds: 3600)
        try h.service.markNoShows()
        #expect(try h.service.loadOrder(late.order.orderId)?.overdueAt == escalated.overdueAt)
        let lateHistory = try h.service.history(OrderQuery(orderId: late.order.orderId))
        #expect(lateHistory.entries.map(\.to) == [.placed, .accepted, .accepted])
        #expect(lateHistory.entries.last?.reason == "not ready by the end of the pickup window plus grace")
        // Every change went to the outbox with its audit row: 5 for the first order, 3 for the late one.
        #expect(try h.count("SELECT COUNT(*) AS n FROM order_audit") == 8)
        #expect(try h.count("SELECT COUNT(*) AS n FROM outbox WHERE topic LIKE 'order.%'") == 8)
        #expect(try h.count("SELECT COUNT(*) AS n FROM outbox WHERE topic LIKE 'order.overdue.%'") == 1)
    }

    @Test("a held place lapses after the hold: the window has it back, and the order that needed it is refused")
    func heldPlaceLapses() throws {
        let h = try OrderHarness(holdSeconds: 120)
        let held = try h.reserve()
        #expect(held.window.remaining == held.window.capacity - 1)
        h.clock.advance(seconds: 120)
        let again = try h.service.windows(WindowsRequest(cafeId: "caffe-macs", locale: "en_US", count: 1)).windows[0]
        #expect(again.start == held.window.start && again.remaining == again.capacity)
        #expect(errorCode { _ = try h.kioskOrder(held) } == "order.reservationExpired")
        #expect(try h.count("SELECT COUNT(*) AS n FROM orders") == 0)
    }

    @Test("a place held for a signed-in user is theirs: another user's order and a guest's are refused and change nothing")
    func reservationBelongsToItsHolder() throws {
        let h = try OrderHarness()
        let held = try h.reserve(user: "alice")
        func appOrder(_ user: String) -> PlaceOrderRequest {
            PlaceOrderRequest(idempotencyKey: "app-\(user)-0001", channel: .app, userId: user, deviceId: nil, cafeId: held.cafeId,
                              reservationId: held.reservationId, items: [OrderItemRequest(itemId: "burger", quantity: 1)],
                              paymentToken: "tok_4242424242424242", locale: "en_US")
        }
        let bob = try requireValue(serviceError { _ = try h.service.place(appOrder("bob")) })
        #expect(bob.code == "order.notOwner" && bob.message.contains("held for another user"))
        #expect(errorCode { _ = try h.kioskOrder(held) } == "order.notOwner")
        #expect(try h.count("SELECT COUNT(*) AS n FROM orders") == 0)
        #expect(try h.count("SELECT COUNT(*) AS n FROM reservations WHERE status = 'held' AND order_id IS NULL") == 1)
        #expect(try h.count("SELECT COUNT(*) AS n FROM outbox WHERE topic LIKE 'order.%'") == 0)
        #expect(try h.count("SELECT COUNT(*) AS n FROM idempotency") == 0)
        // The holder spends it; a guest's place is anyone's who has its id.
        #expect(try h.service.place(appOrder("alice")).order.userId == "alice")
        #expect(try h.service.place(PlaceOrderRequest(idempotencyKey: "app-carol-0001", channel: .app, userId: "carol", deviceId: nil, cafeId: "caffe-macs",
                                                      reservationId: try h.reserve().reservationId, items: [OrderItemRequest(itemId: "burger", quantity: 1)],
                                                      paymentToken: "tok_4242424242424242", locale: "en_US")).order.userId == "carol")
    }

    @Test("an idempotency key answers the first order for at least 24 hours, and is forgotten after 48")
    func idempotencyRetention() throws {
        let h = try OrderHarness()
        let pruner = Pruner(intervalSeconds: 60, batchSize: 2, logger: h.host.logger)
        h.service.addRetention(to: pruner, orderRetentionDays: 0)
        let reservation = try h.reserve()
        let first = try h.kioskOrder(reservation, key: "lunch-key-0001")
        h.clock.advance(seconds: 24 * 3600)
        pruner.turn(until: .infinity) { 0 }
        let retry = try h.kioskOrder(reservation, key: "lunch-key-0001")
        #expect(retry == first)
        h.clock.advance(seconds: 24 * 3600 + 1)
        pruner.turn(until: .infinity) { 0 }
        #expect(try h.count("SELECT COUNT(*) AS n FROM idempotency") == 0)
        #expect(try h.count("SELECT COUNT(*) AS n FROM orders") == 1, "--order-retention-days 0 keeps orders")
        #expect(pruner.pruned["idempotency"] == 1)
        // A reservation goes 48 hours after its window started (the window may start days after it was held).
        let start = try requireValue(try h.service.loadOrder(first.order.orderId)).pickupStart
        h.clock.set(start.adding(seconds: 48 * 3600))
        pruner.turn(until: .infinity) { 0 }
        #expect(try h.count("SELECT COUNT(*) AS n FROM reservations") == 1)
        h.clock.advance(seconds: 0.001)
        pruner.turn(until: .infinity) { 0 }
        #expect(try h.count("SELECT COUNT(*) AS n FROM reservations") == 0, "a window that started 48 hours ago needs no reservation")
        #expect(pruner.pruned["reservations"] == 1)
    }

    @Test("finished orders and their audit rows are pruned --order-retention-days after they ended, in batches; open ones never")
    func finishedOrdersPruned() throws {
        let h = try OrderHarness()
        let pruner = Pruner(intervalSeconds: 60, batchSize: 2, logger: h.host.logger)
        h.service.addRetention(to: pruner, orderRetentionDays: 30)
        var finished: [String] = []
        for index in 0..<3 {
            let order = try h.kioskOrder(try h.reserve(), key: "finished-key-000\(index)").order
            _ = try h.service.cancel(CancelOrderRequest(orderId: order.orderId, by: .kitchen, reason: "changed my mind"), as: .developer)
            finished.append(order.orderId)
        }
        let open = try h.kioskOrder(try h.reserve(), key: "open-key-0001").order
        h.clock.advance(seconds: 30 * 86_400 - 1)
        pruner.turn(until: .infinity) { 0 }
        #expect(try h.count("SELECT COUNT(*) AS n FROM orders") == 4, "not yet 30 days since they ended")
        h.clock.advance(seconds: 2)
        // A turn whose budget is spent after one batch leaves the rest for the next turn.
        var ticks = 0.0
        #expect(pruner.turn(until: 0.5) { ticks += 1; return ticks } == true)
        #expect(pruner.behind)
        pruner.turn(until: .infinity) { 0 }
        #expect(!pruner.behind)
        #expect(try h.count("SELECT COUNT(*) AS n FROM orders") == 1)
        #expect(try h.service.loadOrder(open.orderId) != nil)
        for id in finished { #expect(try h.service.loadOrder(id) == nil) }
        #expect(try h.count("SELECT COUNT(*) AS n FROM order_audit WHERE order_id <> '\(open.orderId)'") == 0)
        #expect(pruner.pruned["orders"] == 3)
    }

    @Test("a window that has started, a time off the grid and a closed café are refused with the next start")
    func pastAndClosedWindows() throws {
        let h = try OrderHarness(start: OrderHarness.saturday)
        let now = h.clock.now()
        let past = try requireValue(serviceError { _ = try h.service.reserve(ReserveRequest(cafeId: "caffe-macs", start: now.adding(seconds: -600), userId: nil, locale: "en_US")) })
        #expect(past.code == "order.windowPast" && past.details?["nextStart"] != nil)
        let offGrid = try requireValue(serviceError { _ = try h.service.reserve(ReserveRequest(cafeId: "caffe-macs", start: now.adding(seconds: 90), userId: nil, locale: "en_US")) })
        #expect(offGrid.code == "order.windowClosed")
        // Parmer Lane opens Monday to Friday, 07:00–19:00 in Austin: Saturday 14:00 there is closed.
        let closed = try requireValue(serviceError { _ = try h.service.reserve(ReserveRequest(cafeId: "parmer-lane-5", start: now.adding(seconds: 3600), userId: nil, locale: "en_US")) })
        #expect(closed.code == "order.windowClosed")
        #expect(closed.message.contains("is closed then"))
        // Monday 30 November 2026, 07:00 CST = 13:00 UTC.
        #expect(closed.details?["nextStart"] == "2026-11-30T13:00:00.000Z")
        #expect(try h.count("SELECT COUNT(*) AS n FROM reservations") == 0)
    }

    @Test("a full window names the next one with room, as a time and in details")
    func fullWindowSuggestsNext() throws {
        let h = try OrderHarness()
        let first = try h.service.windows(WindowsRequest(cafeId: "macs-coffee", locale: "en_US", count: 2)).windows
        for _ in 0..<first[0].capacity {
            _ = try h.service.reserve(ReserveRequest(cafeId: "macs-coffee", start: first[0].start, userId: nil, locale: "en_US"))
        }
        let full = try requireValue(serviceError { _ = try h.service.reserve(ReserveRequest(cafeId: "macs-coffee", start: first[0].start, userId: nil, locale: "en_US")) })
        #expect(full.code == "order.windowFull")
        #expect(full.details?["nextFreeStart"] == "\(first[1].start)")
        // Monday 23 November 2026 12:10 in Cupertino, for en_US (ICU puts U+202F before PM).
        #expect(full.message.contains("Nov 23, 2026 at 12:10\u{202F}PM"))
        #expect(try h.service.windows(WindowsRequest(cafeId: "macs-coffee", locale: "en_US", count: 1)).windows[0].remaining == 0)
    }

    @Test("menu: the nearest café by location must be open; region-monitor silent → the next rule decides")
    func nearestOpenCafe() throws {
        let h = try OrderHarness(start: OrderHarness.saturday)
        // Ranked by region-monitor from a fresh fix: Parmer Lane (closed on Saturday) first.
        h.region.nearestAnswer = .success(NearestAnswer(deviceId: "phone-1", beacon: nil, proximity: nil, cafeId: nil, stationId: nil,
                                                        cafesByDistance: ["parmer-lane-5", "macs-coffee", "caffe-macs"], date: h.clock.now()))
        let menu = try h.service.menu(MenuRequest(userId: "bea", deviceId: "phone-1", locale: "en_US"))
        #expect(menu.rule == .nearestByLocation && menu.cafe.id == "macs-coffee")
        // On Monday Parmer Lane is open at 14:00 in Austin.
        h.clock.set(OrderHarness.monday)
        #expect(try h.service.menu(MenuRequest(userId: "bea", deviceId: "phone-1", locale: "en_US")).cafe.id == "parmer-lane-5")
        // No device, or a preferred café: region-monitor is not asked.
        let calls = h.region.nearestCalls
        _ = try h.service.setPreference(PreferenceRequest(userId: "cy", preference: .cafe("tokyo-cafe")))
        #expect(try h.service.menu(MenuRequest(userId: "cy", deviceId: "phone-1", locale: "ja_JP")).rule == .preferredCafe)
        #expect(try h.service.menu(MenuRequest(userId: "bea", deviceId: nil, locale: "en_US")).rule == .campusDefault)
        #expect(h.region.nearestCalls == calls)
        // region-monitor not answering: the campus default, not an error.
        h.region.nearestAnswer = .failure(ServiceError(.clientTimeout, "no reply"))
        let fallback = try h.service.menu(MenuRequest(userId: "bea", deviceId: "phone-1", locale: "en_US"))
        #expect(fallback.rule == .campusDefault && fallback.cafe.id == "caffe-macs")
    }
}

/// Prices and pickup times as order-service answers them, for a fixed "now": each café's own
/// currency and zone, the user's locale. Exact strings as ICU on this toolchain gives them
/// (U+00A0 no-break space, U+202F narrow no-break space).
@Suite(.serialized)
struct OrderServerFormattingTests {
    @Test("the first pickup window's label: medium date, short time, the café's zone, the user's locale", arguments: [
        ("caffe-macs", "en_US", "Nov 23, 2026 at 12:10\u{202F}PM"),
        ("caffe-macs", "de_DE", "23.11.2026, 12:10"),
        ("caffe-macs", "ja_JP", "2026/11/23 12:10"),
        ("parmer-lane-5", "en_US", "Nov 23, 2026 at 2:15\u{202F}PM"),
        ("parmer-lane-5", "es_UY", "23 nov. 2026, 2:15\u{202F}p.\u{A0}m."),
        // 21:00 in Munich: closed until 07:00 on Tuesday.
        ("munich-cafe", "de_DE", "24.11.2026, 07:00"),
        ("munich-cafe", "en_US", "Nov 24, 2026 at 7:00\u{202F}AM"),
        ("london-cafe", "en_GB", "24 Nov 2026 at 07:00"),
        ("london-cafe", "fr_FR", "24 nov. 2026 à 07:00"),
        ("tokyo-cafe", "ja_JP", "2026/11/24 7:00"),
        ("tokyo-cafe", "en_US", "Nov 24, 2026 at 7:00\u{202F}AM"),
    ])
    func windowLabels(cafe: String, locale: String, expected: String) throws {
        let h = try OrderHarness()
        let window = try requireValue(try h.service.windows(WindowsRequest(cafeId: cafe, locale: locale, count: 1)).windows.first)
        #expect(window.label == expected)
    }

    @Test("menu prices in the café's currency for the user's locale", arguments: [
        ("caffe-macs", "en_US", "burger", "$10.95"),
        ("parmer-lane-5", "es_UY", "breakfast-taco", "US$\u{A0}3,75"),
        ("parmer-lane-5", "en_US", "breakfast-taco", "$3.75"),
        ("munich-cafe", "de_DE", "brezn", "3,20\u{A0}€"),
        ("munich-cafe", "en_US", "brezn", "€3.20"),
        ("london-cafe", "en_GB", "bacon-roll", "£4.50"),
        ("london-cafe", "en_US", "bacon-roll", "£4.50"),
        ("tokyo-cafe", "ja_JP", "onigiri", "¥480"),
        ("tokyo-cafe", "en_US", "onigiri", "¥480"),
    ])
    func menuPrices(cafe: String, locale: String, item: String, expected: String) throws {
        let h = try OrderHarness()
        _ = try h.service.setPreference(PreferenceRequest(userId: "u1", preference: .cafe(cafe)))
        let menu = try h.service.menu(MenuRequest(userId: "u1", deviceId: nil, locale: locale))
        #expect(menu.items.first { $0.id == item }?.price.formatted == expected)
    }
}
