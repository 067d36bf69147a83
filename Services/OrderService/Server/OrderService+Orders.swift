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
            try RequestRules.validatePaymentToken(request.paymentToken)
            guard request.deviceId != nil else {
                throw ServiceError(.invalidField, "an App Clip order needs deviceId: location is confirmed for the phone that scanned the code")
            }
            guard request.clip != nil else { throw ServiceError(.invalidField, "an App Clip order needs clip: the code it was launched from") }
        }
        if request.clip != nil, request.channel != .appClip {
            throw ServiceError(.invalidField, "clip is only for appClip orders")
        }
        let priced = try Pricing.price(request.items, at: cafe)
        // Last, because it is a round trip: region-monitor confirms the code was scanned inside the
        // café before the payment is taken. A refusal changes nothing here.
        if let clip = request.clip, let deviceId = request.deviceId { try confirmClip(clip, deviceId: deviceId, cafe: cafe) }

        return try host.write {
            guard let reservation = try db.query("SELECT * FROM reservations WHERE reservation_id = ?", request.reservationId).first,
                  reservation.string("cafe_id") == cafe.id
            else { throw ServiceError(.unknownReservation, "no reservation \(request.reservationId.prefix(60)) at \(cafe.name)") }
            guard reservation.string("status") == "held" else {
                throw ServiceError(.unknownReservation, "reservation \(request.reservationId) was already used or released")
            }
            // A place held for a signed-in user is theirs: another account, or a guest, cannot
            // spend it. A place held without a user (a kiosk, a clip) is anyone's who has its id.
            if let holder = reservation.optionalString("user_id"), holder != request.userId {
                throw ServiceError(.notOrderOwner, "reservation \(request.reservationId) is held for another user")
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
                pickupEnd: start.adding(seconds: PickupCalendar(cafe: cafe).windowSeconds), placedAt: placedAt, customerHere: false,
                clipCode: request.clip?.url)
            try db.run("INSERT INTO orders (order_id, cafe_id, user_id, device_id, state, snapshot, payment_token, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       orderId, cafe.id, request.userId, request.deviceId, snapshot.state.rawValue, Self.json(snapshot), request.paymentToken,
                       placedAt.milliseconds, placedAt.milliseconds)
            try db.run("UPDATE reservations SET status = 'used', order_id = ? WHERE reservation_id = ?", orderId, request.reservationId)
            try audit(orderId, from: nil, to: .placed, actor: .customer, reason: nil)
            try host.emit(.orderPlaced, topic: Topic.order(state: "placed", cafe: cafe.id), stream: "order",
                          .order(OrderEvent(order: snapshot, previous: nil, reason: nil, at: placedAt)))
            // The payment token is recorded with the order, so it is accepted in the same step.
            let acceptance = switch request.channel {
            case .kiosk: request.paymentToken == nil ? "kiosk: pay at pickup" : "payment token recorded"
            case .app: "payment token recorded"
            case .appClip: "location confirmed at the scanned code; payment token recorded"
            }
            snapshot = try transition(snapshot, to: .accepted, actor: .system, reason: acceptance)
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

    /// The App Clip rules, in APActivationPayload's terms: the URL must be a code the catalog
    /// issued for this café (`doesNotMatch`), the clip must come from a physical code and location
    /// must be allowed (`disallowed`), and region-monitor must place the phone inside the café's
    /// region when the code was scanned (`notInRegion` otherwise).
    func confirmClip(_ clip: ClipLaunch, deviceId: String, cafe: Cafe) throws {
        let url = String(clip.url.prefix(200))
        guard let issuer = catalog.cafe(clipCode: clip.url) else {
            throw ServiceError(.clipDoesNotMatch, "\(url) is not an App Clip code this campus issued")
        }
        guard issuer.id == cafe.id else {
            throw ServiceError(.clipDoesNotMatch, "the code \(url) belongs to \(issuer.name), not \(cafe.name)")
        }
        guard clip.invocation.isPhysicalCode else {
            throw ServiceError(.clipDisallowed, "the clip was opened from \(clip.invocation.rawValue), not from a code at the café, so its location cannot be confirmed",
                               details: ["reason": "notPhysicalCode"])
        }
        guard clip.acquiredAt <= now.adding(seconds: 60) else {
            throw ServiceError(.invalidField, "clip.acquiredAt \(clip.acquiredAt) is in the future")
        }
        let answer: LocationConfirmation
        do {
            answer = try region.confirm(ConfirmLocation(deviceId: deviceId, code: clip.url, acquiredAt: clip.acquiredAt, cafeId: cafe.id))
        } catch {
            host.logger.warning("location confirmation failed", ["device.id": deviceId, "error": "\(error)"])
            throw ServiceError(.confirmationUnavailable, "region-monitor could not confirm the location (\(error)); nothing was charged, try again")
        }
        switch answer.result {
        case .yes:
            return
        case .no:
            throw ServiceError(.clipNotInRegion, "the phone was not at \(cafe.name) when the code was scanned; nothing was charged")
        case .disallowed:
            let reason = answer.reason?.rawValue ?? "unknown"
            throw ServiceError(.clipDisallowed, "location could not be confirmed (\(reason)); nothing was charged", details: ["reason": reason])
        }
    }

    /// `order.cancel`: the customer before preparing (their order only), the kitchen any time before pickup, with a reason.
    func cancel(_ request: CancelOrderRequest) throws -> OrderView {
        if let locale = request.locale { try validateLocale(locale) }
        if let userId = request.userId { try RequestRules.validateID(userId, field: "userId") }
        if let deviceId = request.deviceId { try RequestRules.validateID(deviceId, field: "deviceId") }
        if let reason = request.reason { try RequestRules.validateReason(reason) }
        guard let order = try loadOrder(request.orderId) else { throw ServiceError(.unknownOrder, "no order \(request.orderId.prefix(60))") }
        let actor: OrderLifecycle.Actor
        let reason: String
        switch request.by {
        case .customer:
            guard request.userId != nil || request.deviceId != nil else {
                throw ServiceError(.invalidField, "a customer cancelling names their userId or deviceId")
            }
            let owns = (request.userId != nil && request.userId == order.userId) || (request.deviceId != nil && request.deviceId == order.deviceId)
            guard owns else { throw ServiceError(.notOrderOwner, "order \(order.orderId) is not this customer's") }
            actor = .customer
            reason = request.reason ?? "cancelled by the customer"
        case .kitchen:
            guard let text = request.reason else { throw ServiceError(.invalidField, "the kitchen gives a reason when it cancels") }
            actor = .kitchen
            reason = text
        }
        let next = try host.write { try transition(order, to: .cancelled, actor: actor, reason: reason) }
        return view(next, locale: request.locale ?? (catalog.cafe(next.cafeId)?.locale ?? "en_US"))
    }

    /// `order.pickup`: the counter hands a ready order over.
    func pickup(_ query: OrderQuery) throws -> OrderView {
        if let locale = query.locale { try validateLocale(locale) }
        guard let order = try loadOrder(query.orderId) else { throw ServiceError(.unknownOrder, "no order \(query.orderId.prefix(60))") }
        let next = try host.write { try transition(order, to: .pickedUp, actor: .kitchen, reason: "handed over at the counter") }
        return view(next, locale: query.locale ?? (catalog.cafe(next.cafeId)?.locale ?? "en_US"))
    }

    /// `order.history`: the audit rows of one order, oldest first.
    func history(_ query: OrderQuery) throws -> OrderHistory {
        guard let order = try loadOrder(query.orderId) else { throw ServiceError(.unknownOrder, "no order \(query.orderId.prefix(60))") }
        let rows = try db.query("SELECT from_state, to_state, actor, reason, at_ms FROM order_audit WHERE order_id = ? ORDER BY id", order.orderId)
        return OrderHistory(orderId: order.orderId, state: order.state, entries: rows.map { row in
            AuditEntry(from: row.optionalString("from_state").flatMap(OrderState.init(rawValue:)),
                       to: OrderState(rawValue: row.string("to_state")) ?? order.state,
                       actor: row.string("actor"), reason: row.optionalString("reason"), at: Timestamp(milliseconds: row.int64("at_ms")))
        })
    }

    /// `order.claim`: a guest signed in on the phone their App Clip ordered from; those orders
    /// move to the account (each with an audit row and an `order.claimed` event). Claiming again
    /// moves nothing more.
    func claim(_ request: ClaimOrdersRequest) throws -> ClaimOrdersReply {
        try RequestRules.validateID(request.deviceId, field: "deviceId")
        try RequestRules.validateID(request.userId, field: "userId")
        return try host.write {
            var moved: [String] = []
            let rows = try db.query("SELECT snapshot FROM orders WHERE device_id = ? AND user_id IS NULL ORDER BY created_ms", request.deviceId)
            for row in rows {
                var order = try JSONDecoder().decode(OrderSnapshot.self, from: Data(row.string("snapshot").utf8))
                guard order.channel == .appClip else { continue }
                order.userId = request.userId
                let at = now
                try db.run("UPDATE orders SET user_id = ?, snapshot = ?, updated_ms = ? WHERE order_id = ?", request.userId, Self.json(order), at.milliseconds, order.orderId)
                try audit(order.orderId, from: order.state, to: order.state, actor: .customer, reason: "App Clip guest signed in as \(request.userId)")
                try host.emit(.orderClaimed, topic: Topic.order(state: "claimed", cafe: order.cafeId), stream: "order",
                              .order(OrderEvent(order: order, previous: order.state, reason: "moved to the account \(request.userId)", at: at)))
                try db.run("INSERT INTO last_cafe (user_id, cafe_id, at_ms) VALUES (?, ?, ?) ON CONFLICT(user_id) DO UPDATE SET cafe_id = excluded.cafe_id, at_ms = excluded.at_ms WHERE excluded.at_ms >= last_cafe.at_ms",
                           request.userId, order.cafeId, order.placedAt.milliseconds)
                moved.append(order.orderId)
            }
            return ClaimOrdersReply(userId: request.userId, orderIds: moved)
        }
    }

    /// Forgets idempotency keys older than the retention (48 h: clients are promised 24).
    func expireIdempotencyKeys() throws {
        try host.write { try db.run("DELETE FROM idempotency WHERE created_ms < ?", now.adding(seconds: -Self.idempotencyRetentionSeconds).milliseconds) }
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
