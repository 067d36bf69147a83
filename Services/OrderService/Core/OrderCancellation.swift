import Messages

/// Who may cancel an order, and when: the customer before preparing starts (their own order,
/// named by their userId or deviceId), the kitchen any time before pickup, always with a reason.
/// The lifecycle (`OrderLifecycle`) decides which states may still be cancelled.
public enum OrderCancellation {
    /// The request's fields, checked before the order is looked up.
    public static func check(_ request: CancelOrderRequest) throws(ServiceError) {
        if let locale = request.locale { try RequestRules.validateLocale(locale) }
        if let userId = request.userId { try RequestRules.validateID(userId, field: "userId") }
        if let deviceId = request.deviceId { try RequestRules.validateID(deviceId, field: "deviceId") }
        if let reason = request.reason { try RequestRules.validateReason(reason) }
    }

    /// The cancellation of `order` (nil when no such order): its effects, or the refusal.
    /// `counter`: a kiosk cancels for the guest at its counter (`OrderScope.cancelling` checked the
    /// order is a guest's kiosk order at its café), so the customer's ids are not asked for.
    public static func decide(_ request: CancelOrderRequest, order: OrderSnapshot?, now: Timestamp, counter: Bool = false) throws(ServiceError) -> OrderEffects {
        guard let order else { throw OrderQueries.unknown(request.orderId) }
        let actor: OrderLifecycle.Actor
        let reason: String
        switch request.by {
        case .customer where counter:
            actor = .customer
            reason = request.reason ?? "cancelled at the kiosk"
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
        return try OrderLifecycle.transition(order, to: .cancelled, by: actor, reason: reason, at: now)
    }
}
