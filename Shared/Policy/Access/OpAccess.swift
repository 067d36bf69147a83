import Messages

/// Which roles may call each op: the one table every request socket enforces before a handler
/// runs, and PROTOCOL.md and the README print. An op missing from the table is refused to every
/// role but the plain-mode developer, so a new op cannot ship open by accident.
///
/// The table is the first gate; the handler's scope checks (`Caller.actingUser`, `requireCafe`,
/// `requireOwner`) are the second: a phone may call `order.cancel`, but only for its own order.
///
/// The HTTP edge's key (role `edge`) reaches an op only on behalf of a phone, kiosk or kitchen the
/// op is open to (`viaEdge`): the table then holds the principal it names, as if its own key had
/// called. As itself the edge may only ask for `health`, to tell its clients which service is down,
/// and `replay` the streams it follows for its SSE clients (`ReplayAccess`).
public enum OpAccess {
    public struct Rule: Sendable {
        public let roles: Set<Role>
        /// What each role may do with the op, for the docs and refusals ("own device", "its café").
        public let scope: String
    }

    public static let rules: [String: Rule] = [
        Op.health: Rule(roles: [.service, .operator, .edge], scope: "any service"),
        Op.replay: Rule(roles: [.service, .operator, .edge], scope: "service, operator: any stream; edge: the order, notify, kitchen and menu streams it follows for SSE"),

        Op.ingestReport: Rule(roles: [.phone, .gateway], scope: "phone: its own device; gateway: any device"),
        Op.ingestBatch: Rule(roles: [.gateway], scope: "any device"),

        Op.monitorList: Rule(roles: [.service, .operator], scope: "read-only"),
        Op.monitorIdentifiers: Rule(roles: [.operator], scope: "read-only"),
        Op.monitorRecord: Rule(roles: [.operator], scope: "read-only"),
        Op.monitorOpen: Rule(roles: [.operator], scope: "monitor administration"),
        Op.monitorClose: Rule(roles: [.operator], scope: "monitor administration"),
        Op.monitorAdd: Rule(roles: [.operator], scope: "monitor administration"),
        Op.monitorRemove: Rule(roles: [.operator], scope: "monitor administration"),
        Op.nearestGet: Rule(roles: [.phone, .service, .operator], scope: "phone: its own device; service: order-service only; operator: any device"),
        Op.locationConfirm: Rule(roles: [.phone, .service, .operator], scope: "phone: its own device; service: order-service's App Clip check only; operator: any device"),

        Op.menuGet: Rule(roles: [.phone, .kiosk, .operator], scope: "phone: its own user and device; kiosk: its café"),
        Op.menuAvailabilitySet: Rule(roles: [.kitchen, .operator], scope: "kitchen: items at its café; operator: any café"),
        Op.catalogReload: Rule(roles: [.operator], scope: "order-service, region-monitor, notification-service"),
        Op.preferenceSet: Rule(roles: [.phone], scope: "its own user"),
        Op.preferenceGet: Rule(roles: [.phone, .operator], scope: "phone: its own user"),
        Op.windowsList: Rule(roles: [.phone, .kiosk, .operator], scope: "kiosk: its café"),
        Op.windowReserve: Rule(roles: [.phone, .kiosk], scope: "phone: as its own user, or a guest's place; kiosk: guest places at its café"),
        Op.orderPlace: Rule(roles: [.phone, .kiosk], scope: "phone: app or App Clip, as its own user and device (an App Clip order stays a guest's until claimed); kiosk: guest orders at its café"),
        Op.orderGet: Rule(roles: [.phone, .kiosk, .kitchen, .operator], scope: "phone: its own orders; kiosk: guest orders at its café; kitchen: orders at its café"),
        Op.orderCancel: Rule(roles: [.phone, .kiosk, .kitchen], scope: "phone: its own orders, by customer; kiosk: guest orders at its café; kitchen: by kitchen, at its café"),
        Op.orderPickup: Rule(roles: [.kiosk, .kitchen], scope: "kiosk: guest orders at its café; kitchen: orders at its café"),
        Op.orderHistory: Rule(roles: [.phone, .operator], scope: "phone: its own orders"),
        Op.orderClaim: Rule(roles: [.phone], scope: "to its own user, from its own device"),

        Op.kdsTickets: Rule(roles: [.kitchen, .operator], scope: "kitchen: its café"),
        Op.kdsOrders: Rule(roles: [.kitchen, .operator], scope: "kitchen: its café"),
        Op.kdsCounts: Rule(roles: [.kitchen, .operator], scope: "kitchen: its café"),
        Op.kdsStart: Rule(roles: [.kitchen], scope: "tickets at its café"),
        Op.kdsBump: Rule(roles: [.kitchen], scope: "tickets at its café"),
        Op.kdsRecall: Rule(roles: [.kitchen], scope: "tickets at its café"),
        Op.kdsRush: Rule(roles: [.kitchen], scope: "orders at its café"),

        Op.deviceRegister: Rule(roles: [.phone], scope: "its own device and user"),
        Op.inboxList: Rule(roles: [.phone, .operator], scope: "phone: its own device"),
        Op.reminderSet: Rule(roles: [.phone], scope: "its own device"),
        Op.reminderList: Rule(roles: [.phone, .operator], scope: "phone: its own device"),
        Op.reminderCancel: Rule(roles: [.phone], scope: "its own device"),

        Op.tokenIssue: Rule(roles: [.operator], scope: "the edge's kiosk and kitchen tokens"),
        Op.tokenList: Rule(roles: [.operator], scope: "the edge's sessions"),
        Op.tokenRevoke: Rule(roles: [.operator], scope: "the edge's sessions"),
        Op.backupStart: Rule(roles: [.operator], scope: "the whole database of the service asked"),
        Op.backupRead: Rule(roles: [.operator], scope: "the whole database of the service asked"),
    ]

    /// Roles that act within a scope (a device, a café): an op open to one of them needs a handler
    /// that checks the scope, so `RequestRouter` registers it only with a `Caller`-taking handler.
    public static let scopedRoles: Set<Role> = [.phone, .kiosk, .kitchen]

    /// Why `caller` may not call `op` at all; nil when the op table lets its role in.
    public static func refusal(op: String, caller: Caller) -> ServiceError? {
        guard let role = caller.role else { return nil }
        guard let rule = rules[op] else {
            return ServiceError(.forbidden, "\(Quoting.quoted(op)) is open to no role in deployed mode")
        }
        if rule.roles.contains(role) { return nil }
        let allowed = Role.allCases.filter(rule.roles.contains).map(\.rawValue).joined(separator: ", ")
        return ServiceError(.forbidden, "\(caller.name) (\(role.rawValue)) may not call \(op); it is open to: \(allowed)")
    }

    /// The roles the edge may act on behalf of for `op`, in `Role` order: the on-behalf-of roles
    /// the op is open to.
    public static func viaEdge(_ op: String) -> [Role] {
        guard let rule = rules[op] else { return [] }
        return Role.allCases.filter { rule.roles.contains($0) && Caller.onBehalfOfRoles.contains($0) }
    }

    /// Whether `op` is open to a role that acts within a scope.
    public static func isScoped(_ op: String) -> Bool {
        rules[op].map { !$0.roles.isDisjoint(with: scopedRoles) } ?? false
    }
}
