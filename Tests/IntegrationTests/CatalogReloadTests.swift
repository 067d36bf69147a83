import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// The catalog changes without a restart: prices, prep times and approach areas, a café removed
/// under an open order, through catalog.reload and SIGHUP; a catalog that does not validate is
/// refused and the one in use kept.
@Suite(.serialized)
struct CatalogReloadTests {
    /// The demo catalog as a JSON object, changed by `edit`, written to `path`.
    static func write(_ path: String, from demo: String, _ edit: (inout [String: Any]) -> Void) throws {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: demo))) as? [String: Any])
        edit(&object)
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted]).write(to: URL(fileURLWithPath: path))
    }

    static func cafes(_ object: [String: Any]) -> [[String: Any]] { object["cafes"] as? [[String: Any]] ?? [] }

    @Test("under open orders: new prices and prep times for what comes next, the open orders keep theirs and a removed café's order completes")
    func reloadUnderOpenOrders() throws {
        var platform = try Platform()
        defer { platform.stop() }
        let demo = platform.campus
        let copy = platform.root.appendingPathComponent("campus.json").path
        try FileManager.default.createDirectory(at: platform.root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: demo, toPath: copy)
        platform.campus = copy
        try platform.startAll()
        let context = try Context()
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"), timeoutMilliseconds: 3_000)
        let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"), timeoutMilliseconds: 3_000)
        let region = RequestClient(context: context, endpoint: platform.endpoint("region-monitor"), timeoutMilliseconds: 3_000)
        defer { [orders, kitchen, region].forEach { $0.close() } }

        func kioskOrder(_ cafe: String, _ item: String, key: String) throws -> OrderSnapshot {
            let held = try orders.call(Op.windowReserve, ReserveRequest(cafeId: cafe, start: nil, userId: nil, locale: "en_US"), as: ReservationView.self)
            return try orders.call(Op.orderPlace, PlaceOrderRequest(idempotencyKey: key, channel: .kiosk, userId: nil, deviceId: nil, cafeId: cafe,
                                                                    reservationId: held.reservationId, items: [OrderItemRequest(itemId: item, quantity: 1)],
                                                                    paymentToken: nil, locale: "en_US"), as: OrderView.self).order
        }
        let before = try kioskOrder("caffe-macs", "burger", key: "reload-open-1")
        let coffee = try kioskOrder("macs-coffee", "latte", key: "reload-open-2")
        #expect(before.total == 1095 && before.lines.first?.prepSeconds == 240)

        // The new catalog: a dearer, slower burger, a wider approach at Caffè Macs, the coffee station gone.
        try Self.write(copy, from: demo) { object in
            var cafes = Self.cafes(object).filter { $0["id"] as? String != "macs-coffee" }
            var menu = cafes[0]["menu"] as? [[String: Any]] ?? []
            menu[0]["price"] = 1295
            menu[0]["prepSeconds"] = 300
            cafes[0]["menu"] = menu
            cafes[0]["approach"] = ["radius": 400, "walkSeconds": 300]
            object["cafes"] = cafes
        }
        let reply = try orders.call(Op.catalogReload, Empty(), as: CatalogReloadReply.self)
        #expect(reply.changed && reply.cafes == 5 && reply.service == "order-service")
        let regionReply = try region.call(Op.catalogReload, Empty(), as: CatalogReloadReply.self)
        #expect(regionReply.digest == reply.digest)
        // notification-service on SIGHUP, as an operator would after editing the file.
        kill(try #require(platform.process("notification-service")).processIdentifier, SIGHUP)
        let notify = RequestClient(context: context, endpoint: platform.endpoint("notification-service"), timeoutMilliseconds: 3_000)
        defer { notify.close() }
        _ = try eventually("notification-service reloaded on SIGHUP") {
            try notify.call(Op.health, Empty(), as: HealthStatus.self).details["catalog.digest"] == reply.digest ? true : nil
        }

        let after = try kioskOrder("caffe-macs", "burger", key: "reload-open-3")
        #expect(after.total == 1295 && after.lines.first?.prepSeconds == 300)
        #expect(try orders.call(Op.orderGet, OrderQuery(orderId: before.orderId), as: OrderView.self).order.total == 1095, "the open order keeps its price")
        #expect(errorCode { try kioskOrder("macs-coffee", "latte", key: "reload-open-4") } == "order.unknownCafe")
        let identifiers = try region.call(Op.monitorIdentifiers, MonitorQuery(monitor: "campus"), as: MonitorIdentifiers.self).identifiers
        #expect(identifiers.contains("caffe-macs.approach") && !identifiers.contains { $0.hasPrefix("macs-coffee") }, "\(identifiers)")

        // The removed café's open order is still made, handed over and closed.
        let tickets = try eventually("the coffee order's ticket") {
            try kitchen.call(Op.kdsTickets, TicketsQuery(cafeId: "macs-coffee"), as: TicketsReply.self).tickets.first { $0.orderId == coffee.orderId }
        }
        _ = try kitchen.call(Op.kdsBump, TicketCommand(ticketId: tickets.ticketId), as: TicketView.self)
        _ = try eventually("ready") { try orders.call(Op.orderGet, OrderQuery(orderId: coffee.orderId), as: OrderView.self).order.state == .ready ? true : nil }
        #expect(try orders.call(Op.orderPickup, OrderQuery(orderId: coffee.orderId), as: OrderView.self).order.state == .pickedUp)

        // A catalog that does not validate: refused naming the field, the one in use kept, everything still answering.
        try Self.write(copy, from: demo) { object in
            var cafes = Self.cafes(object)
            var menu = cafes[0]["menu"] as? [[String: Any]] ?? []
            menu[1]["prepSeconds"] = 0
            cafes[0]["menu"] = menu
            object["cafes"] = cafes
        }
        let refused = try platform.cafectl(["request", "orders", "catalog.reload", "{}"])
        #expect(refused.status != 0 && (refused.out + refused.err).contains("catalog.invalid") && (refused.out + refused.err).contains("menu[1].prepSeconds"),
                "\(refused.out) \(refused.err)")
        #expect(try orders.call(Op.health, Empty(), as: HealthStatus.self).details["catalog.digest"] == reply.digest)
        #expect(try kioskOrder("caffe-macs", "burger", key: "reload-open-5").total == 1295)
    }
}

/// Deployed mode: only an operator reloads a catalog, and a kitchen 86es only at its own café.
@Suite(.serialized)
struct DeployedMenuTests {
    @Test("over CURVE: catalog.reload is the operator's (a kitchen and a phone refused); menu.availability.set a kitchen's at its café")
    func refusals() throws {
        var platform = try DeployedScopeTests.platform()
        defer { platform.stop() }
        let copy = platform.root.appendingPathComponent("campus.json").path
        try FileManager.default.createDirectory(at: platform.root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: platform.campus, toPath: copy)
        platform.campus = copy
        try platform.startAll()
        let context = try Context()
        // SIGHUP reloads the key registry and the catalog alike: a new key is admitted and the new catalog used.
        try CatalogReloadTests.write(copy, from: copy) { object in
            var cafes = CatalogReloadTests.cafes(object)
            var menu = cafes[0]["menu"] as? [[String: Any]] ?? []
            menu[0]["price"] = 1295
            cafes[0]["menu"] = menu
            object["cafes"] = cafes
        }
        let digest = SHA256.hex(try Data(contentsOf: URL(fileURLWithPath: copy)))
        kill(try #require(platform.process("order-service")).processIdentifier, SIGHUP)
        let watcher = try platform.client("order-service", as: KeyFolder.defaultOperator, context: context)
        defer { watcher.close() }
        _ = try eventually("order-service reloaded its catalog on SIGHUP in deployed mode") {
            try watcher.call(Op.health, Empty(), as: HealthStatus.self).details["catalog.digest"] == digest ? true : nil
        }
        for service in ["order-service", "region-monitor", "notification-service"] {
            for principal in ["kitchen-macs", "phone-ann"] {
                let client = try platform.client(service, as: principal, context: context)
                defer { client.close() }
                #expect(errorCode { try client.call(Op.catalogReload, Empty(), as: CatalogReloadReply.self) } == "auth.forbidden", "\(principal) at \(service)")
            }
            let operatorClient = try platform.client(service, as: KeyFolder.defaultOperator, context: context)
            defer { operatorClient.close() }
            #expect(try operatorClient.call(Op.catalogReload, Empty(), as: CatalogReloadReply.self).digest == digest)
        }
        let coffee = try platform.client("order-service", as: "kitchen-coffee", context: context)
        let macs = try platform.client("order-service", as: "kitchen-macs", context: context)
        defer { coffee.close(); macs.close() }
        #expect(errorCode { try coffee.call(Op.menuAvailabilitySet, MenuAvailabilityRequest(cafeId: "caffe-macs", itemId: "burger", available: false),
                                            as: MenuAvailability.self) } == "auth.forbidden")
        let set = try macs.call(Op.menuAvailabilitySet, MenuAvailabilityRequest(itemId: "burger", available: false), as: MenuAvailability.self)
        #expect(set.cafeId == "caffe-macs" && set.by == "kitchen-macs")
        // The kitchen's own key through cafectl, as the screen's 8 key acts.
        let restore = try platform.cafectl(["kds", "restore", "burger"], as: "kitchen-macs")
        #expect(restore.status == 0 && restore.out.contains("\"available\":true"), "\(restore.out) \(restore.err)")
    }
}
