import Messages

/// One row of an order's audit trail: who moved it from which state to which, and why.
public struct OrderAudit: Sendable, Equatable {
    public var orderId: String
    /// nil for the row that creates the order.
    public var from: OrderState?
    /// The same as `from` when the order changed without a transition (a claim).
    public var to: OrderState
    public var actor: OrderLifecycle.Actor
    public var reason: String?
    public var at: Timestamp

    public init(orderId: String, from: OrderState?, to: OrderState, actor: OrderLifecycle.Actor, reason: String?, at: Timestamp) {
        self.orderId = orderId
        self.from = from
        self.to = to
        self.actor = actor
        self.reason = reason
        self.at = at
    }
}

/// An event for the `order` stream: its type, its topic and what it carries.
public struct OrderEmission: Sendable, Equatable {
    public var type: EventType
    public var topic: String
    public var event: OrderEvent

    /// The event of an order entering (or, for arrived and claimed, changing within) a state;
    /// `label` is the topic's state word.
    public init(_ type: EventType, label: String, event: OrderEvent) {
        self.type = type
        self.topic = Topic.order(state: label, cafe: event.order.cafeId)
        self.event = event
    }
}

/// The café a user used last, remembered for their menu's "last café" rule.
public struct LastCafe: Sendable, Equatable {
    public var userId: String
    public var cafeId: String
    public var at: Timestamp
    /// A claim remembers an older order's café: it must not replace a café used since.
    public var keepsNewer: Bool

    public init(userId: String, cafeId: String, at: Timestamp, keepsNewer: Bool) {
        self.userId = userId
        self.cafeId = cafeId
        self.at = at
        self.keepsNewer = keepsNewer
    }
}

/// A new order: stored with its payment token, and the reservation it spends marked used.
public struct OrderPlacementRecord: Sendable, Equatable {
    public var reservationId: String
    public var paymentToken: String?

    public init(reservationId: String, paymentToken: String?) {
        self.reservationId = reservationId
        self.paymentToken = paymentToken
    }
}

/// What one decision does to one order, for the shell to store and send in one transaction: the
/// order as it now is, the audit rows and the events (oldest first), and what else changes.
public struct OrderEffects: Sendable, Equatable {
    /// The order after the decision: what is stored and answered.
    public var order: OrderSnapshot
    /// When the decision was taken: the row's update time.
    public var at: Timestamp
    public var audit: [OrderAudit] = []
    public var events: [OrderEmission] = []
    /// Set when the order is new (it is inserted, not updated).
    public var placement: OrderPlacementRecord?
    /// The order's reservation goes back to its window (a cancelled order frees its place).
    public var releasesReservation = false
    public var lastCafe: LastCafe?

    /// No change yet to `order`; steps are added with `then`.
    public init(order: OrderSnapshot, at: Timestamp) {
        self.order = order
        self.at = at
    }

    /// Whether the decision changes anything worth a write.
    public var isEmpty: Bool { audit.isEmpty && events.isEmpty && placement == nil }

    /// These effects followed by moving the order to `state`: refused when the lifecycle does
    /// not allow it. A cancellation also releases the order's reservation.
    public func then(_ state: OrderState, by actor: OrderLifecycle.Actor, reason: String?) throws(ServiceError) -> OrderEffects {
        guard OrderLifecycle.canTransition(from: order.state, to: state, by: actor) else {
            throw OrderLifecycle.refusal(from: order.state, to: state, by: actor)
        }
        var next = self
        next.order.state = state
        next.audit.append(OrderAudit(orderId: order.orderId, from: order.state, to: state, actor: actor, reason: reason, at: at))
        next.events.append(OrderEmission(.order(state), label: state.rawValue,
                                         event: OrderEvent(order: next.order, previous: order.state, reason: reason, at: at)))
        if state == .cancelled { next.releasesReservation = true }
        return next
    }
}

extension OrderLifecycle {
    /// The effects of moving `order` to `state` at `at`: the new snapshot, one audit row, one event.
    public static func transition(_ order: OrderSnapshot, to state: OrderState, by actor: Actor, reason: String?,
                                  at: Timestamp) throws(ServiceError) -> OrderEffects {
        try OrderEffects(order: order, at: at).then(state, by: actor, reason: reason)
    }
}
