import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// The platform in deployed mode, through its sockets: CURVE on every socket, callers known by
/// their keys.
@Suite(.serialized)
struct DeployedPlatformTests {
    @Test("every process starts in deployed mode and answers the operator over CURVE, and nobody without a key")
    func startsDeployed() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        for service in ["bus"] + Platform.services {
            let health = try platform.client(service, as: "operator", context: context).call(Op.health, Empty(), as: HealthStatus.self)
            #expect(health.status == "ok", "\(service): \(health.details)")
            // A plain client gets no session: its request times out unanswered.
            let plain = RequestClient(context: context, endpoint: platform.endpoint(service), timeoutMilliseconds: 300)
            defer { plain.close() }
            #expect(serviceError { try plain.call(Op.health, Empty(), as: HealthStatus.self) }?.code == "client.timeout", "\(service)")
        }
    }

    @Test("a service whose key the bus does not hold says bus.refused in its health")
    func busRefusesUnknownServiceKey() throws {
        var platform = try Platform(security: .deployed)
        defer { platform.stop() }
        let keys = try #require(platform.keys)
        // kitchen-display's own folder: the same registry, but a kitchen-display key of its own
        // that the rest of the campus never heard of.
        let own = KeyFolder(platform.root.appendingPathComponent("kitchen-keys").path)
        try FileManager.default.copyItem(atPath: keys.path, toPath: own.path)
        try own.revoke(name: "kitchen-display")
        try own.add(name: "kitchen-display", role: .service, service: "kitchen-display")
        platform.extraArguments["kitchen-display"] = ["--keys", own.path]
        try platform.start(busAnd: [])
        try platform.start("kitchen-display")
        let context = try Context()
        // It answers (its own REP trusts its own registry), but says why it cannot publish.
        let client = try Platform.client(platform.endpoint("kitchen-display"), server: "kitchen-display", keys: own, as: "operator", context: context)
        defer { client.close() }
        let health = try eventually("kitchen-display health says bus.refused") { () -> HealthStatus? in
            let health = try client.call(Op.health, Empty(), as: HealthStatus.self)
            return health.details["reasons"]?.contains("bus.refused") == true ? health : nil
        }
        #expect(health.status == "degraded")
    }
}

/// The Caffè Macs flow of `ScenarioTests`, in deployed mode: the phone, the chef and the operator
/// each act with their own key, and each is held to what its key may do.
@Suite(.serialized)
struct DeployedScenarioTests {
    static let uuid = "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"

    @Test("Caffè Macs end to end in deployed mode: phone, kitchen and operator keys, and the refusals between them")
    func caffeMacsDeployed() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        let keys = try #require(platform.keys)
        let device = "D-alice", other = "D-bob"
        try keys.add(name: "phone-alice", role: .phone, deviceId: device, userId: "alice")
        try keys.add(name: "phone-bob", role: .phone, deviceId: other, userId: "bob")
        try keys.add(name: "kitchen-macs", role: .kitchen, cafeId: "caffe-macs")
        try keys.add(name: "kitchen-parmer", role: .kitchen, cafeId: "parmer-lane-5")
        try platform.startAll()
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, probe: platform.busPub,
                                     security: try platform.security(as: "operator"), probeAs: try platform.security(as: "order-service"))
        // The phone's own live feed: it asks for its deliveries and for every order event; the bus
        // applies only the first.
        let phoneFeed = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["notify.delivery.\(device).", "order.", "region."],
                                       security: try platform.security(as: "phone-alice"))
        let ingest = try platform.client("beacon-ingest", as: "phone-alice", context: context)
        let orders = try platform.client("order-service", as: "phone-alice", context: context)
        let notify = try platform.client("notification-service", as: "phone-alice", context: context)
        let kitchen = try platform.client("kitchen-display", as: "kitchen-macs", context: context)
        let bob = try platform.client("order-service", as: "phone-bob", context: context)
        let bobNotify = try platform.client("notification-service", as: "phone-bob", context: context)
        let operatorOrders = try platform.client("order-service", as: "operator", context: context)
        defer { [ingest, orders, notify, kitchen, bob, bobNotify, operatorOrders].forEach { $0.close() }; watcher.close(); phoneFeed.close() }

        _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, status: DeviceStatusReport(authorization: .whenInUse, foreground: true)), as: IngestResult.self)
        _ = try orders.call(Op.preferenceSet, PreferenceRequest(userId: "alice", preference: .closestToMe), as: PreferenceView.self)
        _ = try notify.call(Op.deviceRegister, RegisterDevice(deviceId: device, userId: "alice", channel: "bus", language: "en", locale: "en_US", authorization: .authorized), as: Registration.self)

        _ = try eventually("region-monitor's satisfied event") { () -> BusWatcher.Message? in
            let now = Timestamp(Date())
            let sightings = (0..<3).map { RangingReport(uuid: Self.uuid, major: 1, minor: 1, rssi: -62, measuredPower: -59, timestamp: now.adding(seconds: Double($0) * 0.2 - 0.6)) }
            _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, sightings: sightings), as: IngestResult.self)
            return try? watcher.waitFor("region.event.campus.", timeout: 0.5) {
                if case .region(let e) = $0.envelope.body { return e.deviceId == device && e.state == .satisfied }
                return false
            }
        }
        let menu = try eventually("menu chosen by the beacon") {
            let menu = try orders.call(Op.menuGet, MenuRequest(userId: "alice", deviceId: device, locale: "en_US"), as: MenuReply.self)
            return menu.rule == .nearestBeacon ? menu : nil
        }
        #expect(menu.cafe.id == "caffe-macs")

        let windows = try orders.call(Op.windowsList, WindowsRequest(cafeId: "caffe-macs", locale: "en_US"), as: WindowsReply.self)
        let window = try #require(windows.windows.first { $0.remaining > 0 })
        // The reservation and the order leave the user and device out: the key says who.
        let reservation = try orders.call(Op.windowReserve, ReserveRequest(cafeId: "caffe-macs", start: window.start, userId: nil, locale: "en_US"), as: ReservationView.self)
        let placed = try orders.call(Op.orderPlace, PlaceOrderRequest(
            idempotencyKey: "deployed-\(UUID().uuidString)", channel: .app, userId: nil, deviceId: nil, cafeId: "caffe-macs",
            reservationId: reservation.reservationId, items: [OrderItemRequest(itemId: "burger", quantity: 1)],
            paymentToken: "tok_4242424242424242", locale: "en_US"), as: OrderView.self)
        let orderId = placed.order.orderId
        #expect(placed.order.userId == "alice" && placed.order.deviceId == device)

        // Nobody else may reach it: another phone, the operator acting as a user, another café's kitchen.
        #expect(serviceError { try bob.call(Op.orderGet, OrderQuery(orderId: orderId), as: OrderView.self) }?.code == "auth.forbidden")
        #expect(serviceError { try bob.call(Op.orderCancel, CancelOrderRequest(orderId: orderId, by: .customer, userId: "alice", deviceId: device), as: OrderView.self) }?.code == "auth.forbidden")
        #expect(serviceError { try bobNotify.call(Op.inboxList, InboxQuery(deviceId: device), as: InboxReply.self) }?.code == "auth.forbidden")
        #expect(serviceError { try operatorOrders.call(Op.orderPlace, PlaceOrderRequest(
            idempotencyKey: "operator-\(UUID().uuidString)", channel: .app, userId: "alice", deviceId: device, cafeId: "caffe-macs",
            reservationId: reservation.reservationId, items: [OrderItemRequest(itemId: "burger", quantity: 1)],
            paymentToken: "tok_4242424242424242", locale: "en_US"), as: OrderView.self) }?.code == "auth.forbidden")

        let tickets = try eventually("tickets on the kitchen screen") {
            let tickets = try kitchen.call(Op.kdsTickets, TicketsQuery(cafeId: "caffe-macs"), as: TicketsReply.self).tickets.filter { $0.orderId == orderId }
            return tickets.isEmpty ? nil : tickets
        }
        for ticket in tickets {
            let refused = try platform.cafectl(["kds", "bump", ticket.ticketId], as: "kitchen-parmer")
            #expect(refused.status != 0 && (refused.out + refused.err).contains("auth.forbidden"), "another café's kitchen: \(refused.out) \(refused.err)")
            let bumped = try platform.cafectl(["kds", "bump", ticket.ticketId], as: "kitchen-macs")
            #expect(bumped.status == 0, "cafectl kds bump as kitchen-macs failed: \(bumped.err)")
        }

        try watcher.waitFor("order.ready.caffe-macs.") {
            if case .order(let e) = $0.envelope.body { return e.order.orderId == orderId }
            return false
        }
        #expect(try orders.call(Op.orderGet, OrderQuery(orderId: orderId), as: OrderView.self).order.state == .ready)
        let delivery = try phoneFeed.waitFor("notify.delivery.\(device).")
        guard case .notification(let note) = delivery.envelope.body else { Issue.record("not a notification"); return }
        #expect(note.collapseId == orderId && note.title == "Your order is ready")
        let inbox = try notify.call(Op.inboxList, InboxQuery(deviceId: device), as: InboxReply.self)
        #expect(inbox.notifications.map(\.notificationId).contains(note.notificationId))
        // The phone's feed carried its own deliveries and nothing else.
        try phoneFeed.pump()
        #expect(phoneFeed.messages.allSatisfy { $0.topic.hasPrefix("notify.delivery.\(device).") }, "\(phoneFeed.messages.map(\.topic))")
        #expect(watcher.all("deadletter.").isEmpty)

        // The operator sees it all and refused requests are counted.
        let health = try platform.cafectl(["health", "order-service"])
        #expect(health.status == 0, "\(health.out) \(health.err)")
        let orderHealth = try platform.client("order-service", as: "operator", context: context).call(Op.health, Empty(), as: HealthStatus.self)
        #expect(Int(orderHealth.details["auth.refused"] ?? "0") ?? 0 >= 3)
    }
}
