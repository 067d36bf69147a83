import Campus
import Foundation
import Messages
import OrderCore
import SQLite
import ServiceRuntime

extension OrderService {
    /// `order.place`: checks everything, then in one transaction stores the order, uses the
    /// reservation, records the payment token, writes audit rows and the `order.placed` and
    /// `order.accepted` events, and remembers the reply under the idempotency key.
    func place(_ request: PlaceOrderRequest) throws -> OrderView {
        try RequestRules.validateIdempotencyKey(request.idempotencyKey)
        let canonical = Self.canonical(request)
        if let stored = try db.query("SELECT request, reply FROM idempotency WHERE key = ?", request.idempotencyKey).first {
            guard stored.string("request") == canonical else {
                throw ServiceError(.idempotencyConflict, "idempotencyKey \(request.idempotencyKey) was used for a different order")
            }
            return try JSONDecoder().decode(OrderView.self, from: stored.data("reply"))
        }
        let cafe = try cafe(request.cafeId)
        try validateLocale(request.locale)
        if let userId = request.userId { try RequestRules.validateID(userId, field: "userId") }
        if let deviceId = request.deviceId { try RequestRules.validateID(deviceId, field: "deviceId") }
        switch request.channel {
        case .app:
            guard request.userId != nil else { throw ServiceError(.invalidField, "an app order needs userId") }
            try RequestRules.validatePaymentToken(request.paymentToken)
        case .kiosk:
            if request.paymentToken != nil { try RequestRules.validatePaymentToken(request.paymentToken) }
        case .appClip:
            // Clip payments wait for region-monitor's location confirmation of the scanned code,
            // which this build does not have yet: refuse rather than take an unconfirmed payment.
            throw ServiceError(.channelUnsupported, "App Clip orders need location confirmation, which this build does not offer yet")
        }
        let priced = try Pricing.price(request.items, at: cafe)

        return try host.write {
            guard let reservation = try db.query("SELECT * FROM reservations WHERE reservation_id = ?", request.reservationId).first,
                  reservation.string("cafe_id") == cafe.id
            else { throw ServiceError(.unknownReservation, "no reservation \(request.reservationId.prefix(60)) at \(cafe.name)") }
            guard reservation.string("status") == "held" else {
                throw ServiceError(.unknownReservation, "reservation \(request.reservationId) was already used or released")
            }
            guard reservation.int64("expires_ms") > now.milliseconds else {
                throw ServiceError(.reservationExpired, "reservation \(request.reservationId) expired; reserve the window again")
            }
            let start = Timestamp(milliseconds: reservation.int64("window_start_ms"))
            let orderId = "ord_" + UUID().uuidString.lowercased()
            let placedAt = now
            var snapshot = OrderSnapshot(
                orderId: orderId, cafeId: cafe.id, cafeName: cafe.name, timeZone: cafe.timeZone, currency: cafe.currency,
                channel: request.channel, userId: request.userId, deviceId: request.deviceId, state: .placed,
                lines: priced.lines, total: priced.total, pickupStart: start,
                pickupEnd: start.adding(seconds: PickupCalendar(cafe: cafe).windowSeconds), placedAt: placedAt, customerHere: false)
            try db.run("INSERT INTO orders (order_id, cafe_id, user_id, device_id, state, snapshot, payment_token, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       orderId, cafe.id, request.userId, request.deviceId, snapshot.state.rawValue, Self.json(snapshot), request.paymentToken,
                       placedAt.milliseconds, placedAt.milliseconds)
            try db.run("UPDATE reservations SET status = 'used', order_id = ? WHERE reservation_id = ?", orderId, request.reservationId)
            try audit(orderId, from: nil, to: .placed, actor: .customer, reason: nil)
            try host.emit(.orderPlaced, topic: Topic.order(state: "placed", cafe: cafe.id), stream: "order",
                          .order(OrderEvent(order: snapshot, previous: nil, reason: nil, at: placedAt)))
            // The payment token is recorded with the order, so it is accepted in the same step.
            snapshot = try transition(snapshot, to: .accepted, actor: .system, reason: request.paymentToken == nil ? "kiosk: pay at pickup" : "payment token recorded")
            if let userId = request.userId {
                try db.run("INSERT INTO last_cafe (user_id, cafe_id, at_ms) VALUES (?, ?, ?) ON CONFLICT(user_id) DO UPDATE SET cafe_id = excluded.cafe_id, at_ms = excluded.at_ms",
                           userId, cafe.id, placedAt.milliseconds)
            }
            let view = view(snapshot, locale: request.locale)
            try db.run("INSERT INTO idempotency (key, request, reply, created_ms) VALUES (?, ?, ?, ?)",
                       request.idempotencyKey, canonical, Wire.encode(view), placedAt.milliseconds)
            return view
        }
    }

    /// `order.get`.
    func order(_ query: OrderQuery) throws -> OrderView {
        if let locale = query.locale { try validateLocale(locale) }
        guard let snapshot = try loadOrder(query.orderId) else { throw ServiceError(.unknownOrder, "no order \(query.orderId.prefix(60))") }
        return view(snapshot, locale: query.locale ?? (catalog.cafe(snapshot.cafeId)?.locale ?? "en_US"))
    }

    func view(_ snapshot: OrderSnapshot, locale: String) -> OrderView {
        let cafe = catalog.cafe(snapshot.cafeId)
        return OrderView(order: snapshot,
                         total: cafe.map { presenter.price(snapshot.total, cafe: $0, locale: locale) }
                            ?? PriceView(minorUnits: snapshot.total, currency: snapshot.currency, formatted: "\(snapshot.total)"),
                         pickupLabel: times.format(snapshot.pickupStart, timeZone: snapshot.timeZone, locale: locale))
    }

    func loadOrder(_ orderId: String) throws -> OrderSnapshot? {
        guard let row = try db.query("SELECT snapshot FROM orders WHERE order_id = ?", orderId).first else { return nil }
        return try JSONDecoder().decode(OrderSnapshot.self, from: Data(row.string("snapshot").utf8))
    }

    /// Moves an order to `state` inside the caller's transaction: row, audit and event together.
    @discardableResult
    func transition(_ order: OrderSnapshot, to state: OrderState, actor: OrderLifecycle.Actor, reason: String?) throws -> OrderSnapshot {
        guard OrderLifecycle.canTransition(from: order.state, to: state, by: actor) else {
            throw OrderLifecycle.refusal(from: order.state, to: state, by: actor)
        }
        var next = order
        next.state = state
        let at = now
        try db.run("UPDATE orders SET state = ?, snapshot = ?, updated_ms = ? WHERE order_id = ?", state.rawValue, Self.json(next), at.milliseconds, order.orderId)
        if state == .cancelled {
            try db.run("UPDATE reservations SET status = 'released' WHERE order_id = ?", order.orderId)
        }
        try audit(order.orderId, from: order.state, to: state, actor: actor, reason: reason)
        try host.emit(.order(state), topic: Topic.order(state: state.rawValue, cafe: order.cafeId), stream: "order",
                      .order(OrderEvent(order: next, previous: order.state, reason: reason, at: at)))
        return next
    }

    func audit(_ orderId: String, from: OrderState?, to: OrderState, actor: OrderLifecycle.Actor, reason: String?) throws {
        try db.run("INSERT INTO order_audit (order_id, from_state, to_state, actor, reason, at_ms) VALUES (?, ?, ?, ?, ?, ?)",
                   orderId, from?.rawValue, to.rawValue, actor.rawValue, reason, now.milliseconds)
    }

    /// Ready orders not collected by the end of their window plus the café's grace period.
    func markNoShows() throws {
        let rows = try db.query("SELECT snapshot FROM orders WHERE state = 'ready'")
        for row in rows {
            let order = try JSONDecoder().decode(OrderSnapshot.self, from: Data(row.string("snapshot").utf8))
            let grace = Double((catalog.cafe(order.cafeId)?.pickup.graceMinutes ?? 15) * 60)
            if now.seconds(since: order.pickupEnd) > grace {
                try host.write { try transition(order, to: .noShow, actor: .system, reason: "not collected by the end of the pickup window") }
            }
        }
    }

    static func json<T: Encodable>(_ value: T) -> String { String(decoding: Wire.encode(value), as: UTF8.self) }

    /// The request as canonical JSON (sorted keys), to tell a retry from a different order.
    static func canonical(_ request: PlaceOrderRequest) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(request)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}
