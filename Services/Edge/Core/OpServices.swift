import Messages

/// Which service answers each op a route calls, and whether it is sharded by device (as
/// PROTOCOL.md section 5's "answered by" column has it; a test holds the two together). A sharded
/// op goes to the instance of `Topic.shard(of: deviceId, count:)`, the device being the route's
/// `{deviceId}`.
public enum OpServices {
    /// A service the edge sends ops to.
    public struct Target: Sendable, Equatable {
        /// The service's usual name (`order-service`), as PROTOCOL.md and the key registry write it.
        public let service: String
        /// Whether each device's requests go to the shard instance that owns it.
        public let sharded: Bool
    }

    static let ingest = Target(service: "beacon-ingest", sharded: true)
    static let region = Target(service: "region-monitor", sharded: true)
    static let orders = Target(service: "order-service", sharded: false)
    static let kitchen = Target(service: "kitchen-display", sharded: false)
    static let notify = Target(service: "notification-service", sharded: false)

    /// The ops routes call, by the service that answers them.
    public static let targets: [String: Target] = [
        Op.ingestReport: ingest,
        Op.nearestGet: region, Op.locationConfirm: region,
        Op.menuGet: orders, Op.menuAvailabilitySet: orders, Op.preferenceSet: orders, Op.preferenceGet: orders, Op.windowsList: orders,
        Op.windowReserve: orders, Op.orderPlace: orders, Op.orderGet: orders, Op.orderCancel: orders, Op.orderPickup: orders,
        Op.orderHistory: orders, Op.orderClaim: orders,
        Op.kdsTickets: kitchen, Op.kdsStart: kitchen, Op.kdsBump: kitchen, Op.kdsRecall: kitchen, Op.kdsRush: kitchen,
        Op.kdsOrders: kitchen, Op.kdsCounts: kitchen,
        Op.deviceRegister: notify, Op.inboxList: notify, Op.reminderSet: notify, Op.reminderList: notify, Op.reminderCancel: notify,
    ]

    /// The service answering `op`, or nil for an op no route calls.
    public static func target(of op: String) -> Target? { targets[op] }
}
