import Messages
import OrderCore
import Testing

@Suite("Order lifecycle")
struct OrderLifecycleTests {
    typealias Actor = OrderLifecycle.Actor
    static let actors: [Actor] = [.customer, .kitchen, .system]

    /// Every legal (from, to, actor); anything else is refused.
    /// - forward steps placed → accepted → preparing → ready → pickedUp: the kitchen or the system;
    /// - the customer may cancel only before preparing starts; the kitchen may cancel any open order;
    /// - the system may cancel an order not yet started (payment or reservation problems);
    /// - noShow only from ready, only by the system (the end-of-window timer);
    /// - nothing leaves pickedUp, cancelled or noShow.
    static let legal: Set<String> = [
        "placed→accepted by kitchen", "placed→accepted by system",
        "accepted→preparing by kitchen", "accepted→preparing by system",
        "preparing→ready by kitchen", "preparing→ready by system",
        "ready→pickedUp by kitchen", "ready→pickedUp by system",
        "placed→cancelled by customer", "placed→cancelled by kitchen", "placed→cancelled by system",
        "accepted→cancelled by customer", "accepted→cancelled by kitchen", "accepted→cancelled by system",
        "preparing→cancelled by kitchen",
        "ready→cancelled by kitchen",
        "ready→noShow by system",
        // A kitchen recall of a ready order: the food is not on the shelf after all.
        "ready→preparing by kitchen",
    ]

    static func key(_ from: OrderState, _ to: OrderState, _ actor: Actor) -> String { "\(from.rawValue)→\(to.rawValue) by \(actor.rawValue)" }

    static let allCombinations: [(OrderState, OrderState, Actor)] =
        OrderState.allCases.flatMap { from in OrderState.allCases.flatMap { to in actors.map { (from, to, $0) } } }

    @Test("every (from, to, actor) against the rules", arguments: allCombinations)
    func transitionTable(from: OrderState, to: OrderState, actor: Actor) {
        let allowed = OrderLifecycle.canTransition(from: from, to: to, by: actor)
        #expect(allowed == Self.legal.contains(Self.key(from, to, actor)), "\(Self.key(from, to, actor))")
    }

    @Test("the table names only real transitions")
    func tableIsWellFormed() {
        let all = Set(Self.allCombinations.map { Self.key($0.0, $0.1, $0.2) })
        #expect(Self.legal.isSubset(of: all))
        #expect(Self.allCombinations.count == 7 * 7 * 3)
    }

    @Test("nothing leaves a final state", arguments: OrderState.allCases.filter(\.isFinal))
    func finalStates(from: OrderState) {
        for to in OrderState.allCases {
            for actor in Self.actors { #expect(!OrderLifecycle.canTransition(from: from, to: to, by: actor)) }
        }
    }

    @Test("a customer can never move an order forward", arguments: OrderState.allCases)
    func customerCannotAdvance(from: OrderState) {
        for to in OrderState.allCases where to != .cancelled {
            #expect(!OrderLifecycle.canTransition(from: from, to: to, by: .customer))
        }
    }

    @Test("the refusal carries order.illegalTransition and names the states and actor")
    func refusal() {
        let error = OrderLifecycle.refusal(from: .preparing, to: .cancelled, by: .customer)
        #expect(error.code == "order.illegalTransition")
        #expect(error.message.contains("preparing") && error.message.contains("cancelled") && error.message.contains("customer"))
    }

    @Test("the path to ready when the kitchen reports an order ready", arguments: [
        (OrderState.placed, [OrderState.accepted, .preparing, .ready]),
        (.accepted, [.preparing, .ready]),
        (.preparing, [.ready]),
        (.ready, []),
        (.pickedUp, []),
        (.cancelled, []),
        (.noShow, []),
    ])
    func pathToReady(from: OrderState, path: [OrderState]) {
        #expect(OrderLifecycle.pathToReady(from: from) == path)
        // Every step is one the kitchen may take, so walking the path never hits a refusal.
        var state = from
        for step in OrderLifecycle.pathToReady(from: from) {
            #expect(OrderLifecycle.canTransition(from: state, to: step, by: .kitchen))
            state = step
        }
    }
}
