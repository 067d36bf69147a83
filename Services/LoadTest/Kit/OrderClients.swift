import Campus
import Foundation
import ServiceRuntime
import ZeroMQ

/// The sockets orders travel on. Plain mode: one order-service client and one kitchen-display
/// client for everything. Deployed mode: identity comes from the connection, so each ordering
/// phone reserves and orders over its own order-service connection with its own phone key, and
/// each café's tickets are bumped over a kitchen-display connection with that café's kitchen key.
/// Every request is sent again, unchanged, when its reply does not come (see `PipelinedClient`).
final class OrderClients {
    typealias Client = PipelinedClient<OrderDriver.Step>

    /// Order-service clients: one, or one per ordering phone.
    let orders: [Client]
    /// Kitchen-display clients by café id; plain mode's single one under "".
    let kitchens: [String: Client]

    /// Deployed mode keeps one connection per phone, and libzmq a file descriptor and a mailbox
    /// per socket: orders rotate over at most this many phones.
    static let deployedPhoneLimit = 200

    /// The phone and kitchen keys a deployed run mints, named after the run.
    static func keys(runID: String, phones: Int, fleet: PhoneFleet, catalog: CampusCatalog) -> [LoadSecurity.Mint] {
        guard phones > 0 else { return [] }
        return (0..<phones).map { LoadSecurity.Mint(name: phoneKey(runID: runID, phone: $0), role: .phone, deviceId: fleet.phones[$0].id, userId: OrderDriver.user(runID: runID, phone: $0)) }
            + catalog.cafes.enumerated().map { LoadSecurity.Mint(name: kitchenKey(runID: runID, cafe: $0.offset), role: .kitchen, cafeId: $0.element.id) }
    }

    static func phoneKey(runID: String, phone: Int) -> String { "\(runID)-phone-\(phone)" }
    static func kitchenKey(runID: String, cafe: Int) -> String { "\(runID)-kitchen-\(cafe)" }

    init(settings: RunSettings, security: LoadSecurity, context: Context, runID: String, phones: Int, catalog: CampusCatalog) throws {
        if security.isDeployed && phones == 0 {
            orders = []
            kitchens = [:]
        } else if security.isDeployed {
            orders = try (0..<phones).map {
                try security.pipelined("order-service as phone \($0)", context: context, peer: settings.orders, defaultServer: "order-service",
                                       as: Self.phoneKey(runID: runID, phone: $0), retrying: true)
            }
            kitchens = try Dictionary(uniqueKeysWithValues: catalog.cafes.enumerated().map { index, cafe in
                (cafe.id, try security.pipelined("kitchen-display for \(cafe.id)", context: context, peer: settings.kitchen, defaultServer: "kitchen-display",
                                                 as: Self.kitchenKey(runID: runID, cafe: index), retrying: true) as Client)
            })
        } else {
            orders = [try security.pipelined("order-service", context: context, peer: settings.orders, defaultServer: "order-service", as: nil, retrying: true)]
            kitchens = ["": try security.pipelined("kitchen-display", context: context, peer: settings.kitchen, defaultServer: "kitchen-display", as: nil, retrying: true)]
        }
    }

    /// The client phone `phone` orders on.
    func orders(phone: Int) -> Client { orders[orders.count == 1 ? 0 : phone % orders.count] }

    /// The client `cafe`'s tickets are bumped on.
    func kitchen(cafe: String) -> Client { kitchens[cafe] ?? kitchens[""] ?? kitchens.values.first! }

    /// Every client, orders first, kitchens in café order.
    var all: [Client] { orders + kitchens.keys.sorted().map { kitchens[$0]! } }

    func close() { all.forEach { $0.close() } }
}
