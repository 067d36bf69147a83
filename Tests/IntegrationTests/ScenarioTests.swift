import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// The Caffè Macs flow from the talks, through the real executables, spoken to only through their
/// sockets (and cafectl, as a chef would).
@Suite(.serialized)
struct ScenarioTests {
    static let uuid = "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"

    @Test("phone near Caffè Macs → region event → menu → order → kitchen bump → localized ready notification; then denied")
    func caffeMacsFlow() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, probe: platform.busPub)
        let ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest"))
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"))
        let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"))
        let notify = RequestClient(context: context, endpoint: platform.endpoint("notification-service"))
        defer { [ingest, orders, kitchen, notify].forEach { $0.close() }; watcher.close() }

        // The phone: whenInUse, app in the foreground, "Closest to Me", en_US.
        let device = "phone-\(UUID().uuidString.prefix(8))"
        _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, status: DeviceStatusReport(authorization: .whenInUse, foreground: true)), as: IngestResult.self)
        _ = try orders.call(Op.preferenceSet, PreferenceRequest(userId: "alice", preference: .closestToMe), as: PreferenceView.self)
        _ = try notify.call(Op.deviceRegister, RegisterDevice(deviceId: device, userId: "alice", channel: "bus", language: "en", locale: "en_US", authorization: .authorized), as: Registration.self)

        // It ranges the Caffè Macs beacon (major 1, the grill's minor 1), near, and keeps ranging as
        // a phone does: sightings are best-effort, and right after start-up the bus may still be
        // passing region-monitor's subscription up to beacon-ingest.
        func isSatisfied(_ message: BusWatcher.Message) -> Bool {
            if case .region(let e) = message.envelope.body { return e.deviceId == device && e.identifier == "caffe-macs" && e.state == .satisfied }
            return false
        }
        let satisfied = try eventually("region-monitor's satisfied event") { () -> BusWatcher.Message? in
            let now = Timestamp(Date())
            let sightings = (0..<3).map { RangingReport(uuid: Self.uuid, major: 1, minor: 1, rssi: -62, measuredPower: -59, timestamp: now.adding(seconds: Double($0) * 0.2 - 0.6)) }
            let ingested = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, sightings: sightings), as: IngestResult.self)
            #expect(ingested.accepted == 3 && ingested.rejected == 0)
            return try? watcher.waitFor("region.event.campus.", timeout: 0.5, where: isSatisfied)
        }
        // region-monitor: satisfied for the Caffè Macs beacon condition, refined to the beacon seen, once.
        guard case .region(let event) = satisfied.envelope.body else { Issue.record("not a region event"); return }
        #expect(event.refinement == BeaconIdentity(uuid: Self.uuid, major: 1, minor: 1))
        #expect(satisfied.envelope.stream == "region" && satisfied.envelope.source == "region-monitor")
        try watcher.pump()
        #expect(watcher.all("region.event.campus.").filter(isSatisfied).count == 1, "satisfied is announced once, however many sightings")

        // order-service: Caffè Macs's menu, in dollars for en_US, chosen by the nearest beacon.
        let menu = try eventually("menu chosen by the beacon") {
            let menu = try orders.call(Op.menuGet, MenuRequest(userId: "alice", deviceId: device, locale: "en_US"), as: MenuReply.self)
            return menu.rule == .nearestBeacon ? menu : nil
        }
        #expect(menu.cafe.id == "caffe-macs" && menu.cafe.currency == "USD")
        let burger = try #require(menu.items.first { $0.id == "burger" })
        #expect(burger.price.formatted == "$10.95")
        #expect(burger.price.minorUnits == 1095)

        // A pickup window and an order.
        let windows = try orders.call(Op.windowsList, WindowsRequest(cafeId: "caffe-macs", locale: "en_US"), as: WindowsReply.self)
        let window = try #require(windows.windows.first { $0.remaining > 0 })
        let reservation = try orders.call(Op.windowReserve, ReserveRequest(cafeId: "caffe-macs", start: window.start, userId: "alice", locale: "en_US"), as: ReservationView.self)
        let placed = try orders.call(Op.orderPlace, PlaceOrderRequest(
            idempotencyKey: "scenario-\(device)", channel: .app, userId: "alice", deviceId: device, cafeId: "caffe-macs",
            reservationId: reservation.reservationId, items: [OrderItemRequest(itemId: "burger", quantity: 1, modifiers: ["cheese"]), OrderItemRequest(itemId: "caesar", quantity: 2)],
            paymentToken: "tok_4242424242424242", locale: "en_US"), as: OrderView.self)
        let orderId = placed.order.orderId
        #expect(placed.order.state == .accepted)
        #expect(placed.order.total == 1095 + 100 + 2 * 895)
        #expect(placed.total.formatted == "$29.85")
        #expect(placed.pickupLabel == window.label)

        // kitchen-display shows a ticket per station.
        let tickets = try eventually("tickets on the kitchen screen") {
            let tickets = try kitchen.call(Op.kdsTickets, TicketsQuery(cafeId: "caffe-macs"), as: TicketsReply.self).tickets.filter { $0.orderId == orderId }
            return tickets.count == 2 ? tickets : nil
        }
        #expect(Set(tickets.map(\.station)) == ["grill", "salad"])

        // A chef bumps both through cafectl.
        for ticket in tickets {
            let result = try platform.cafectl(["kds", "bump", ticket.ticketId])
            #expect(result.status == 0, "cafectl kds bump failed: \(result.err)")
            #expect(result.out.contains("\"state\":\"ready\""))
        }

        // order-service marks the order ready, and notification-service tells the phone, in English.
        try watcher.waitFor("order.ready.caffe-macs.") {
            if case .order(let e) = $0.envelope.body { return e.order.orderId == orderId }
            return false
        }
        let ready = try orders.call(Op.orderGet, OrderQuery(orderId: orderId), as: OrderView.self)
        #expect(ready.order.state == .ready)
        let delivery = try watcher.waitFor("notify.delivery.\(device).")
        guard case .notification(let note) = delivery.envelope.body else { Issue.record("not a notification"); return }
        #expect(note.title == "Your order is ready")
        #expect(note.body == "Your order from Caffè Macs is ready for pickup. Pickup window: \(window.label).")
        #expect(note.collapseId == orderId && note.kind == .orderReady && note.language == "en")
        let inbox = try notify.call(Op.inboxList, InboxQuery(deviceId: device), as: InboxReply.self)
        #expect(inbox.notifications.map(\.notificationId) == [note.notificationId])

        // The refusal path: the phone switches to denied.
        _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, status: DeviceStatusReport(authorization: .denied, foreground: true)), as: IngestResult.self)
        let refused = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, sightings: [RangingReport(uuid: Self.uuid, major: 1, minor: 1, rssi: -60, measuredPower: -59, timestamp: Timestamp(Date()))]), as: IngestResult.self)
        #expect(refused.accepted == 0 && refused.rejected == 1)
        #expect(refused.rejections.first?.code == "location.authorizationDenied")
        try watcher.waitFor("region.purged.") {
            if case .purged(let p) = $0.envelope.body { return p.deviceId == device && p.reason == .denied }
            return false
        }
        // Its menu now comes from its default preference: Closest to Me without location falls back
        // to the last café used, never to the beacon it can no longer be placed by.
        let fallback = try eventually("menu without location") {
            let menu = try orders.call(Op.menuGet, MenuRequest(userId: "alice", deviceId: device, locale: "en_US"), as: MenuReply.self)
            return menu.rule != .nearestBeacon ? menu : nil
        }
        #expect(fallback.rule == .lastCafe && fallback.cafe.id == "caffe-macs")
        // Nothing the platform published after the denial was a sighting of this device.
        try watcher.pump()
        let purgeIndex = try #require(watcher.messages.firstIndex { $0.topic == "region.purged." })
        #expect(!watcher.messages[purgeIndex...].contains { if case .sighting(let s) = $0.envelope.body { return s.deviceId == device } else { return false } })
        // No message anywhere carried coordinates out of region-monitor.
        #expect(!watcher.messages.contains { $0.envelope.source != "beacon-ingest" && String(decoding: Wire.encode($0.envelope), as: UTF8.self).contains("latitude") })
        #expect(watcher.all("deadletter.").isEmpty)
    }

    @Test("a user who prefers a café gets its menu, priced in its currency for the user's locale")
    func preferredCafeMenu() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"))
        defer { orders.close() }
        _ = try orders.call(Op.preferenceSet, PreferenceRequest(userId: "diego", preference: .cafe("parmer-lane-5")), as: PreferenceView.self)
        let menu = try orders.call(Op.menuGet, MenuRequest(userId: "diego", deviceId: nil, locale: "es_UY"), as: MenuReply.self)
        #expect(menu.rule == .preferredCafe && menu.cafe.id == "parmer-lane-5")
        let taco = try #require(menu.items.first { $0.id == "breakfast-taco" })
        #expect(taco.price.currency == "USD")
        #expect(taco.price.formatted == "US$\u{A0}3,75")
        let fresh = try orders.call(Op.menuGet, MenuRequest(userId: "nobody", deviceId: nil, locale: "en_US"), as: MenuReply.self)
        #expect(fresh.rule == .campusDefault && fresh.cafe.id == "caffe-macs")
    }
}
