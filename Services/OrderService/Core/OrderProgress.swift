import Messages

/// How an order moves on after it was placed: the kitchen's events, the hand-over at the
/// counter, and the no-show of a ready order nobody collected.
public enum OrderProgress {
    /// Minutes a ready order is kept after its window when its café is not in the catalog.
    public static let defaultGraceMinutes = 15

    /// The effects of a kitchen event on its order; nil when it changes nothing (started on an
    /// order already past accepted, ready on one already ready, a bump or a recall).
    public static func kitchen(_ type: EventType, _ event: KitchenEvent, order: OrderSnapshot?, now: Timestamp) throws(ServiceError) -> OrderEffects? {
        guard let order else { throw ServiceError(.unknownOrder, "kitchen event for unknown order \(event.orderId)") }
        var effects = OrderEffects(order: order, at: now)
        switch type {
        case .kitchenStarted:
            if order.state == .accepted { effects = try effects.then(.preparing, by: .kitchen, reason: "started at \(event.station ?? "kitchen")") }
        case .kitchenReady:
            // An order bumped straight from new passes through preparing, each step audited.
            for step in OrderLifecycle.pathToReady(from: order.state) {
                effects = try effects.then(step, by: .kitchen, reason: step == .ready ? "every station bumped" : "bumped")
            }
        case .kitchenRecalled:
            // A recall of a ready order takes it back: the customer was told to come and the food
            // is not there. The count makes the next ready a new notification (same collapse id).
            if order.state == .ready {
                effects.order.recalls = (order.recalls ?? 0) + 1
                effects = try effects.then(.preparing, by: .kitchen, reason: "recalled at \(event.station ?? "kitchen") after ready")
            }
        case .kitchenBumped, .kitchenPaced:
            break
        default:
            throw ServiceError(.unknownType, "order-service does not consume \(type.rawValue)")
        }
        return effects.isEmpty ? nil : effects
    }

    /// `order.pickup`: the counter hands a ready order over.
    public static func handOver(_ order: OrderSnapshot, now: Timestamp) throws(ServiceError) -> OrderEffects {
        try OrderLifecycle.transition(order, to: .pickedUp, by: .kitchen, reason: "handed over at the counter", at: now)
    }

    /// Whether a ready order is a no-show: not collected by the end of its window plus the café's grace.
    public static func isNoShow(_ order: OrderSnapshot, graceMinutes: Int?, now: Timestamp) -> Bool {
        order.state == .ready && now.seconds(since: order.pickupEnd) > Double((graceMinutes ?? defaultGraceMinutes) * 60)
    }

    /// Whether an order the kitchen has not finished is overdue: still placed, accepted or
    /// preparing after the end of its window plus the café's grace, and not escalated yet.
    public static func isOverdue(_ order: OrderSnapshot, graceMinutes: Int?, now: Timestamp) -> Bool {
        [.placed, .accepted, .preparing].contains(order.state) && order.overdueAt == nil
            && now.seconds(since: order.pickupEnd) > Double((graceMinutes ?? defaultGraceMinutes) * 60)
    }

    /// The escalation of an overdue order: `overdueAt`, an audit row and `order.overdue`, once.
    /// Never a close: the order stays open for the kitchen to make and the customer to collect.
    public static func overdue(_ order: OrderSnapshot, graceMinutes: Int?, now: Timestamp) -> OrderEffects? {
        guard isOverdue(order, graceMinutes: graceMinutes, now: now) else { return nil }
        let reason = "not ready by the end of the pickup window plus grace"
        var effects = OrderEffects(order: order, at: now)
        effects.order.overdueAt = now
        effects.audit.append(OrderAudit(orderId: order.orderId, from: order.state, to: order.state, actor: .system, reason: reason, at: now))
        effects.events.append(OrderEmission(.orderOverdue, label: "overdue", event: OrderEvent(order: effects.order, previous: order.state, reason: reason, at: now)))
        return effects
    }

    /// The no-show of `order` when its time has come; nil otherwise.
    public static func noShow(_ order: OrderSnapshot, graceMinutes: Int?, now: Timestamp) throws(ServiceError) -> OrderEffects? {
        guard isNoShow(order, graceMinutes: graceMinutes, now: now) else { return nil }
        return try OrderLifecycle.transition(order, to: .noShow, by: .system, reason: "not collected by the end of the pickup window", at: now)
    }
}
