import Campus
import Foundation
import Messages
import OrderCore
import Policy
import ServiceRuntime

/// The order ops: each loads what its rules need, asks `OrderCore` for the decision and writes
/// its effects with their events in one transaction. A refusal changes nothing.
extension OrderService {
    /// `order.place`: the field and channel rules, the App Clip's location, then in one
    /// transaction the reservation, the order accepted with its audit rows and events, and the
    /// reply remembered under the idempotency key.
    func place(_ request: PlaceOrderRequest, as caller: Caller) throws -> OrderView {
        try RequestRules.validateIdempotencyKey(request.idempotencyKey)
        // The caller's own ids go into the request before its canonical form is taken, so a retry
        // under the same key matches only from the same phone (a kiosk's, only at its café).
        let request = try OrderScope.placement(request, caller: caller)
        let canonical = OrderIdempotency.canonical(request)
        if let reply = try OrderIdempotency.replay(try store.idempotency(request.idempotencyKey), canonical: canonical) {
            return try JSONDecoder().decode(OrderView.self, from: reply)
        }
        let checked = try OrderPlacement.check(request, catalog: catalog)
        try MenuAvailabilityRules.checkAvailable(request.items, cafe: checked.cafe, unavailable: try store.unavailableItems(cafeId: checked.cafe.id))
        // Last, because it is a round trip: region-monitor confirms the code was scanned inside the
        // café before the payment is taken. A refusal changes nothing here.
        if let clip = request.clip, let deviceId = request.deviceId { try confirmClip(clip, deviceId: deviceId, cafe: checked.cafe) }
        return try events.write {
            let effects = try OrderPlacement.decide(request, checked, reservation: try store.reservation(request.reservationId),
                                                    orderId: "ord_" + UUID().uuidString.lowercased(), now: now, away: try away(request, cafe: checked.cafe))
            try apply(effects)
            let view = view(effects.order, locale: request.locale)
            try store.insert(IdempotencyRecord(key: request.idempotencyKey, request: canonical, reply: Wire.encode(view), createdAt: effects.at))
            return view
        }
    }

    /// For a paced app order: when the phone was last decided outside the café's approach area,
    /// with the café's walk from its edge, if that is region-monitor's latest word (the kitchen
    /// holds what the walk covers); nil otherwise.
    func away(_ request: PlaceOrderRequest, cafe: Cafe) throws -> (at: Timestamp, walkSeconds: Int)? {
        guard request.channel == .app, cafe.isPaced, let approach = cafe.approach, let deviceId = request.deviceId,
              let at = try store.awayAt(deviceId: deviceId, cafeId: cafe.id) else { return nil }
        return (at, approach.walkSeconds)
    }

    /// The App Clip's code and launch (`AppClipRules`), then region-monitor's word that the phone
    /// was inside the café when the code was scanned.
    func confirmClip(_ clip: ClipLaunch, deviceId: String, cafe: Cafe) throws {
        try AppClipRules.check(clip, cafe: cafe, catalog: catalog, now: now)
        let answer: LocationConfirmation
        do {
            answer = try region.confirm(ConfirmLocation(deviceId: deviceId, code: clip.url, acquiredAt: clip.acquiredAt, cafeId: cafe.id))
        } catch {
            logger.warning("location confirmation failed", ["device.id": deviceId, "error": "\(error)"])
            throw AppClipRules.unavailable(error)
        }
        try AppClipRules.verdict(answer, cafe: cafe)
    }

    /// `order.cancel`: the customer before preparing (their order only), the kitchen any time
    /// before pickup, with a reason. A phone cancels its own as the customer, a kiosk a guest's
    /// kiosk order at its café, a kitchen any order at its café as the kitchen (`OrderScope`).
    func cancel(_ request: CancelOrderRequest, as caller: Caller) throws -> OrderView {
        try OrderCancellation.check(request)
        let request = try OrderScope.cancellation(request, caller: caller)
        let order = try OrderScope.reach(try store.order(request.orderId), id: request.orderId, caller: caller, to: "cancel")
        let counter = try OrderScope.cancelling(order, caller: caller)
        let next = try events.write { try apply(try OrderCancellation.decide(request, order: order, now: now, counter: counter)) }
        return view(next, requested: request.locale)
    }

    /// `order.pickup`: the counter (a kiosk or the kitchen of the order's café) hands a ready order over.
    func pickup(_ query: OrderQuery, as caller: Caller) throws -> OrderView {
        if let locale = query.locale { try RequestRules.validateLocale(locale) }
        let order = try OrderScope.reach(try store.order(query.orderId), id: query.orderId, caller: caller, to: "hand over")
        let next = try events.write { try apply(try OrderProgress.handOver(order, now: now)) }
        return view(next, requested: query.locale)
    }

    /// `order.history`: the audit rows of one order, oldest first (a phone's own orders only).
    func history(_ query: OrderQuery, as caller: Caller) throws -> OrderHistory {
        let order = try OrderScope.reach(try store.order(query.orderId), id: query.orderId, caller: caller, to: "read the history of")
        return OrderHistory(orderId: order.orderId, state: order.state, entries: try store.history(order.orderId, current: order.state))
    }

    /// `order.claim`: a guest signed in on the phone their App Clip ordered from; those orders
    /// move to the account (each with an audit row and an `order.claimed` event). Claiming again
    /// moves nothing more. A phone claims only its own device's orders, to its own user.
    func claim(_ request: ClaimOrdersRequest, as caller: Caller) throws -> ClaimOrdersReply {
        let (deviceId, userId) = try OrderCustomerEvents.checkClaim(try OrderScope.claim(request, caller: caller))
        return try events.write {
            let claimed = OrderCustomerEvents.claim(userId: userId, orders: try store.guestOrders(deviceId: deviceId), now: now)
            for effects in claimed { try apply(effects) }
            return ClaimOrdersReply(userId: userId, orderIds: claimed.map(\.order.orderId))
        }
    }

    /// `order.get`: a phone its own orders, a kiosk or kitchen the orders at its café.
    func order(_ query: OrderQuery, as caller: Caller) throws -> OrderView {
        if let locale = query.locale { try RequestRules.validateLocale(locale) }
        return view(try OrderScope.reach(try store.order(query.orderId), id: query.orderId, caller: caller, to: "read"), requested: query.locale)
    }

    /// Ready orders not collected by the end of their window plus the café's grace period become
    /// no-shows; orders the kitchen has not finished by then are escalated as overdue (once, never
    /// closed). Each in its own transaction.
    func markNoShows() throws {
        let at = now
        for order in try store.readyOrders(windowEndedBefore: at) {
            if let effects = try OrderProgress.noShow(order, graceMinutes: catalog.cafe(order.cafeId)?.pickup.graceMinutes, now: at) {
                try events.write { try apply(effects) }
            }
        }
        for order in try store.unfinishedOrders(windowEndedBefore: at) {
            if let effects = OrderProgress.overdue(order, graceMinutes: catalog.cafe(order.cafeId)?.pickup.graceMinutes, now: at) {
                try events.write { try apply(effects) }
            }
        }
    }

    /// Moves an order to `state` inside the caller's transaction: row, audit and event together.
    @discardableResult
    func transition(_ order: OrderSnapshot, to state: OrderState, actor: OrderLifecycle.Actor, reason: String?) throws -> OrderSnapshot {
        try apply(try OrderLifecycle.transition(order, to: state, by: actor, reason: reason, at: now))
    }

    /// Stores a decision's effects and queues its events, inside the caller's transaction; the
    /// order as it now is.
    @discardableResult
    func apply(_ effects: OrderEffects) throws -> OrderSnapshot {
        // The row keeps the snapshot as the event announcing it carried it: encoded once.
        var snapshot: Data?
        for emission in effects.events {
            let body = try events.emitKeepingBody(emission.type, topic: emission.topic, stream: "order", .order(emission.event)).body
            if emission.event.order == effects.order { snapshot = EnvelopeFrame.member("order", of: body) }
        }
        try store.save(effects, snapshot: snapshot)
        return effects.order
    }

    /// The order as a user sees it, in `requested`'s locale, else its café's.
    func view(_ snapshot: OrderSnapshot, requested: String?) -> OrderView {
        view(snapshot, locale: OrderQueries.locale(requested: requested, cafeLocale: catalog.cafe(snapshot.cafeId)?.locale))
    }

    func view(_ snapshot: OrderSnapshot, locale: String) -> OrderView {
        let cafe = catalog.cafe(snapshot.cafeId)
        return OrderView(order: snapshot,
                         total: cafe.map { presenter.price(snapshot.total, cafe: $0, locale: locale) }
                            ?? PriceView(minorUnits: snapshot.total, currency: snapshot.currency, formatted: "\(snapshot.total)"),
                         pickupLabel: times.format(snapshot.pickupStart, timeZone: snapshot.timeZone, locale: locale))
    }

    /// The stored order (tests and the kitchen's events read it through here).
    func loadOrder(_ orderId: String) throws -> OrderSnapshot? { try store.order(orderId) }
}
