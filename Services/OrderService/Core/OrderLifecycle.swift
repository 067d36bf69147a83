import Messages

/// The legal order transitions: placed → accepted → preparing → ready → pickedUp; cancelled from
/// any open state (the customer only before preparing); noShow once ready and uncollected; and
/// ready → preparing when the kitchen recalls a ready order (the food is not on the shelf after all).
public enum OrderLifecycle {
    /// Who moves an order: the customer, the kitchen (and counter), or the service itself.
    public enum Actor: String, Sendable {
        case customer, kitchen, system
    }

    /// Whether `actor` may move an order from `from` to `to`.
    public static func canTransition(from: OrderState, to: OrderState, by actor: Actor) -> Bool {
        switch (from, to) {
        case (.placed, .accepted), (.accepted, .preparing), (.preparing, .ready), (.ready, .pickedUp):
            return actor != .customer
        case (.placed, .cancelled), (.accepted, .cancelled):
            return true
        case (.preparing, .cancelled), (.ready, .cancelled), (.ready, .preparing):
            return actor == .kitchen
        case (.ready, .noShow):
            return actor == .system
        default:
            return false
        }
    }

    /// The steps from `from` to `ready` when the kitchen reports an order ready (an order bumped
    /// straight from new passes through preparing, each step audited).
    public static func pathToReady(from: OrderState) -> [OrderState] {
        switch from {
        case .placed: [.accepted, .preparing, .ready]
        case .accepted: [.preparing, .ready]
        case .preparing: [.ready]
        default: []
        }
    }

    /// The refusal for an illegal transition.
    public static func refusal(from: OrderState, to: OrderState, by actor: Actor) -> ServiceError {
        ServiceError(.illegalTransition, "an order that is \(from.rawValue) cannot become \(to.rawValue) by the \(actor.rawValue)")
    }
}
