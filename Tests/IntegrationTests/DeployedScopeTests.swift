import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// order-service and kitchen-display in deployed mode, over real CURVE sockets: who may act is
/// the key that opened the session, never the body. A phone is refused on another's order, a
/// kitchen on another café's ticket, a kiosk on every ticket; their owners act.
@Suite(.serialized)
struct DeployedScopeTests {
    /// The platform deployed, with Ann's and Bob's phones, Caffè Macs' kiosk and kitchen, and
    /// Macs Coffee's kitchen in its registry. order-service names region-monitor's key in its
    /// endpoint, as compose names each shard's.
    static func platform() throws -> Platform {
        let platform = try Platform(security: .deployed)
        let keys = try #require(platform.keys)
        try keys.add(name: "phone-ann", role: .phone, deviceId: "phone-ann", userId: "ann")
        try keys.add(name: "phone-bob", role: .phone, deviceId: "phone-bob", userId: "bob")
        try keys.add(name: "kiosk-macs", role: .kiosk, cafeId: "caffe-macs")
        try keys.add(name: "kitchen-macs", role: .kitchen, cafeId: "caffe-macs")
        try keys.add(name: "kitchen-coffee", role: .kitchen, cafeId: "macs-coffee")
        platform.extraArguments["order-service"] = ["--region-endpoints", "region-monitor@" + platform.endpoint("region-monitor")]
        return platform
    }

    @Test("over CURVE: Bob's phone is refused on Ann's order and the other café's kitchen and the kiosk on Caffè Macs' ticket; nothing changes, the owners act")
    func refusalsOverCurve() throws {
        let platform = try Self.platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        func orders(_ name: String) throws -> RequestClient { try platform.client("order-service", as: name, context: context, timeoutMilliseconds: 5_000) }
        func kitchen(_ name: String) throws -> RequestClient { try platform.client("kitchen-display", as: name, context: context, timeoutMilliseconds: 5_000) }
        let ann = try orders("phone-ann"), bob = try orders("phone-bob"), kiosk = try orders("kiosk-macs")
        let macsKitchen = try kitchen("kitchen-macs"), coffeeKitchen = try kitchen("kitchen-coffee"), kioskAtKitchen = try kitchen("kiosk-macs")
        defer { [ann, bob, kiosk, macsKitchen, coffeeKitchen, kioskAtKitchen].forEach { $0.close() } }

        // Ann orders through the app with her ids left out: the order is her user's and device's.
        let window = try #require(try ann.call(Op.windowsList, WindowsRequest(cafeId: "caffe-macs", locale: "en_US"), as: WindowsReply.self).windows.first { $0.remaining > 1 })
        let held = try ann.call(Op.windowReserve, ReserveRequest(cafeId: "caffe-macs", start: window.start, userId: nil, locale: "en_US"), as: ReservationView.self)
        let order = try ann.call(Op.orderPlace, PlaceOrderRequest(
            idempotencyKey: "deployed-ann-1", channel: .app, userId: nil, deviceId: nil, cafeId: "caffe-macs", reservationId: held.reservationId,
            items: [OrderItemRequest(itemId: "burger", quantity: 1)], paymentToken: "tok_4242424242424242", locale: "en_US"), as: OrderView.self).order
        #expect(order.userId == "ann" && order.deviceId == "phone-ann")

        // Bob's phone: reading, cancelling by naming Ann, or cancelling as the kitchen is refused.
        let query = OrderQuery(orderId: order.orderId)
        let read = serviceError { try bob.call(Op.orderGet, query, as: OrderView.self) }
        #expect(read?.code == "auth.forbidden" && read?.message.contains("phone-bob") == true, "\(String(describing: read))")
        #expect(errorCode { try bob.call(Op.orderCancel, CancelOrderRequest(orderId: order.orderId, by: .customer, userId: "ann"), as: OrderView.self) } == "auth.forbidden")
        #expect(errorCode { try bob.call(Op.orderCancel, CancelOrderRequest(orderId: order.orderId, by: .kitchen, reason: "none"), as: OrderView.self) } == "auth.forbidden")
        #expect(try ann.call(Op.orderGet, query, as: OrderView.self).order.state == .accepted, "Ann's order is as it was")

        // The kiosk places a guest order at its café; its tickets reach the kitchen.
        let guest = try KitchenDisplayTests.placeTwoStationOrder(kiosk, key: "deployed-kiosk-1")
        let grill = "\(guest):grill"
        _ = try eventually("the guest order's tickets at Caffè Macs' kitchen") {
            try macsKitchen.call(Op.kdsTickets, TicketsQuery(), as: TicketsReply.self).tickets.contains { $0.ticketId == grill } ? true : nil
        }
        // Macs Coffee's kitchen sees none of Caffè Macs' tickets and may not bump one; nor may the kiosk.
        #expect(try coffeeKitchen.call(Op.kdsTickets, TicketsQuery(), as: TicketsReply.self).tickets.isEmpty)
        let bump = serviceError { try coffeeKitchen.call(Op.kdsBump, TicketCommand(ticketId: grill), as: TicketView.self) }
        #expect(bump?.code == "auth.forbidden" && bump?.message.contains("kitchen-coffee") == true, "\(String(describing: bump))")
        #expect(errorCode { try coffeeKitchen.call(Op.kdsTickets, TicketsQuery(cafeId: "caffe-macs"), as: TicketsReply.self) } == "auth.forbidden")
        #expect(errorCode { try kioskAtKitchen.call(Op.kdsBump, TicketCommand(ticketId: grill), as: TicketView.self) } == "auth.forbidden")
        let untouched = try macsKitchen.call(Op.kdsTickets, TicketsQuery(includeDone: true), as: TicketsReply.self).tickets.first { $0.ticketId == grill }
        #expect(untouched?.state == .new, "the refused bumps changed nothing")
        #expect(try macsKitchen.call(Op.kdsBump, TicketCommand(ticketId: grill), as: TicketView.self).state == .ready)

        // Every refusal was counted by the service that refused it.
        for (service, refused) in [("order-service", 3), ("kitchen-display", 3)] {
            let health = try platform.client(service, as: "operator", context: context).call(Op.health, Empty(), as: HealthStatus.self)
            #expect(health.details["auth.refused"] == "\(refused)", "\(service): \(health.details)")
        }
    }

    @Test("an App Clip order over CURVE: order-service asks region-monitor with its own key, for the phone's own device")
    func clipAsksRegionMonitor() throws {
        let platform = try Self.platform()
        defer { platform.stop() }
        try platform.start(busAnd: ["region-monitor", "order-service"])
        let context = try Context()
        let ann = try platform.client("order-service", as: "phone-ann", context: context)
        defer { ann.close() }
        let window = try #require(try ann.call(Op.windowsList, WindowsRequest(cafeId: "caffe-macs", locale: "en_US"), as: WindowsReply.self).windows.first { $0.remaining > 0 })
        let held = try ann.call(Op.windowReserve, ReserveRequest(cafeId: "caffe-macs", start: window.start, userId: nil, locale: "en_US"), as: ReservationView.self)
        let clip = PlaceOrderRequest(idempotencyKey: "deployed-clip-1", channel: .appClip, userId: nil, deviceId: nil, cafeId: "caffe-macs",
                                     reservationId: held.reservationId, items: [OrderItemRequest(itemId: "fries", quantity: 1)], paymentToken: "tok_4242424242424242",
                                     locale: "en_US", clip: ClipLaunch(url: "https://clip.campus.example/caffe-macs/counter", invocation: .appClipCode,
                                                                       acquiredAt: Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000) - 5_000)))
        // region-monitor knows no fix for Ann's phone, so it says so: an answer, not silence, proves
        // the CURVE session from order-service's key to the named region-monitor key.
        let refusal = serviceError { try ann.call(Op.orderPlace, clip, as: OrderView.self) }
        #expect(refusal?.code == "appClip.disallowed", "\(String(describing: refusal))")
        #expect(platform.log("region-monitor").contains("\"device.id\":\"phone-ann\""), "asked about Ann's own device")
    }

    @Test("the kitchen screen in deployed mode refuses to start without --screen-as, and with a key that is not a kitchen's, saying why")
    func screenNeedsAKitchenKey() throws {
        let platform = try Self.platform()
        defer { platform.stop() }
        let binary = platform.bin.appendingPathComponent("kitchen-display")
        let keys = try #require(platform.keys).path
        let without = try runCommand(binary, ["--attach", platform.endpoint("kitchen-display"), "--security", "deployed", "--keys", keys], timeout: 20)
        #expect(without.status == 1 && without.err.contains("--screen-as"), "\(without.err)")
        let screen = try runCommand(binary, platform.arguments(for: "kitchen-display") + ["--screen"], timeout: 20)
        #expect(screen.status == 1 && screen.err.contains("--screen-as"), "\(screen.err)")
        let phone = try runCommand(binary, ["--attach", platform.endpoint("kitchen-display"), "--security", "deployed", "--keys", keys, "--screen-as", "phone-ann"], timeout: 20)
        #expect(phone.status == 1 && phone.err.contains("phone key"), "\(phone.err)")
    }
}
