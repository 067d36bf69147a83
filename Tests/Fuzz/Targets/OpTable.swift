import Foundation
import Messages
import ServiceRuntime

/// Every op the platform answers, with the body type its service decodes it as (the table of
/// PROTOCOL.md section 5): how a fuzz input reaches the decoder a service would run on it.
struct OpEntry: Sendable {
    let name: String
    /// Answers the op on `router` with an empty success, as a service would after decoding it.
    let register: @Sendable (RequestRouter) -> Void
    /// The routes' agreement on a frame as a request of this op, and its round trip.
    let check: @Sendable (Data) -> String?
}

enum OpTable {
    static func entry<Body: Codable & Sendable & Equatable>(_ op: String, _ body: Body.Type) -> OpEntry {
        OpEntry(name: op,
                register: { router in router.on(op, Body.self) { _, _ in Empty() } },
                check: { frame in
                    Agreement.checkRoundTrip(Request<Body>.self, frame, malformed: .invalidField) { $0.op == $1.op && $0.id == $1.id && $0.body == $1.body }
                })
    }

    static let entries: [OpEntry] = [
        entry(Op.health, Empty.self),
        entry(Op.replay, ReplayRequest.self),
        entry(Op.ingestReport, IngestReport.self),
        entry(Op.ingestBatch, IngestBatch.self),
        entry(Op.monitorList, Empty.self),
        entry(Op.monitorOpen, MonitorOwnership.self),
        entry(Op.monitorClose, MonitorOwnership.self),
        entry(Op.monitorAdd, AddCondition.self),
        entry(Op.monitorRemove, RemoveCondition.self),
        entry(Op.monitorIdentifiers, MonitorQuery.self),
        entry(Op.monitorRecord, RecordQuery.self),
        entry(Op.nearestGet, DeviceQuery.self),
        entry(Op.locationConfirm, ConfirmLocation.self),
        entry(Op.menuGet, MenuRequest.self),
        entry(Op.preferenceSet, PreferenceRequest.self),
        entry(Op.preferenceGet, PreferenceRequest.self),
        entry(Op.windowsList, WindowsRequest.self),
        entry(Op.windowReserve, ReserveRequest.self),
        entry(Op.orderPlace, PlaceOrderRequest.self),
        entry(Op.orderGet, OrderQuery.self),
        entry(Op.orderCancel, CancelOrderRequest.self),
        entry(Op.orderPickup, OrderQuery.self),
        entry(Op.orderHistory, OrderQuery.self),
        entry(Op.orderClaim, ClaimOrdersRequest.self),
        entry(Op.kdsTickets, TicketsQuery.self),
        entry(Op.kdsStart, TicketCommand.self),
        entry(Op.kdsBump, TicketCommand.self),
        entry(Op.kdsRecall, TicketCommand.self),
        entry(Op.kdsRush, RushCommand.self),
        entry(Op.kdsOrders, OrdersQuery.self),
        entry(Op.kdsCounts, CountsQuery.self),
        entry(Op.deviceRegister, RegisterDevice.self),
        entry(Op.inboxList, InboxQuery.self),
        entry(Op.reminderSet, SetReminder.self),
        entry(Op.reminderList, ReminderQuery.self),
        entry(Op.reminderCancel, CancelReminder.self),
        entry(Op.menuAvailabilitySet, MenuAvailabilityRequest.self),
        entry(Op.catalogReload, CatalogReloadRequest.self),
        entry(Op.backupStart, BackupStartRequest.self),
        entry(Op.backupRead, BackupReadRequest.self),
    ]

    static let byName: [String: OpEntry] = Dictionary(entries.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
}
