import Messages
import Policy

/// Which café's tickets a caller may see and act on, from its key (issue 13). `OpAccess` has
/// already let the caller's role call the op (the views: kitchen and operator; the commands:
/// kitchen only); these rules keep a kitchen to its café. The operator and the plain-mode
/// developer see every café.
///
/// To a kitchen, a ticket or order the kitchen does not hold and one of another café answer alike
/// (`auth.forbidden`, "…, or there is no such ticket"), as order-service answers unknown orders.
public enum KitchenScope {
    /// The café a view (`kds.tickets`, `kds.orders`, `kds.counts`) is for: a kitchen's own when
    /// the query names none, and another café refused. Others: the query's (nil: every café).
    public static func viewCafe(_ cafeId: String?, caller: Caller) throws(ServiceError) -> String? {
        guard let principal = caller.principal, principal.role != .operator else { return cafeId }
        guard principal.role == .kitchen, let own = principal.cafeId else { throw caller.forbidden("see the kitchen's tickets") }
        guard let cafeId else { return own }
        try caller.requireCafe(cafeId, "see the tickets")
        return cafeId
    }

    /// Refuses `caller` acting on `tickets` (the ticket, or the order's tickets, as the store holds
    /// them; empty: none) unless they are at its café. `what` names the act ("bump ticket \"t\"").
    /// The operator and the developer pass (an unknown id is then the board's own refusal); any
    /// role but a kitchen is refused (the op table already keeps the others out).
    public static func requireReach(_ tickets: [Ticket], caller: Caller, to what: String, noun: String) throws(ServiceError) {
        guard let principal = caller.principal, principal.role != .operator else { return }
        guard principal.role == .kitchen, let cafe = tickets.first?.cafeId, cafe == principal.cafeId else {
            throw caller.forbidden("\(what): it is not at café \(Quoting.quoted(principal.cafeId ?? "")), or there is no such \(noun)")
        }
    }
}
