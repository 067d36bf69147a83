import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// The forgeries of issue 13 against the whole platform: events claiming to be another
/// service's. Deployed mode stops them at the bus and at the consumers; plain mode (which cannot
/// tell who sent what) still refuses unknown sources, and loses no real order to a forged seq.
@Suite(.serialized)
struct ForgeryTests {
    /// Places a kiosk order for one burger (one grill ticket) at Caffè Macs; returns it.
    static func placeOrder(_ orders: RequestClient, key: String) throws -> OrderSnapshot {
        let windows = try orders.call(Op.windowsList, WindowsRequest(cafeId: "caffe-macs", locale: "en_US"), as: WindowsReply.self)
        let window = try #require(windows.windows.first { $0.remaining > 0 })
        let reservation = try orders.call(Op.windowReserve, ReserveRequest(cafeId: "caffe-macs", start: window.start, userId: nil, locale: "en_US"),
                                          as: ReservationView.self)
        return try orders.call(Op.orderPlace, PlaceOrderRequest(
            idempotencyKey: key, channel: .kiosk, userId: nil, deviceId: nil, cafeId: "caffe-macs", reservationId: reservation.reservationId,
            items: [OrderItemRequest(itemId: "burger", quantity: 1)], paymentToken: nil, locale: "en_US"), as: OrderView.self).order
    }

    static func kitchenReady(_ order: OrderSnapshot, source: String, seq: UInt64) -> [Data] {
        let now = Timestamp(Date())
        return Platform.frames(Topic.kitchen(event: "ready", cafe: order.cafeId), Envelope(
            type: .kitchenReady, source: source, stream: "kitchen", seq: seq, time: now,
            body: .kitchen(KitchenEvent(orderId: order.orderId, cafeId: order.cafeId, ticketId: nil, station: nil, at: now))))
    }

    static func orderEvent(_ type: EventType, _ order: OrderSnapshot, seq: UInt64) -> [Data] {
        let now = Timestamp(Date())
        let state = String(type.rawValue.dropFirst("order.".count))
        return Platform.frames(Topic.order(state: state, cafe: order.cafeId), Envelope(
            type: type, source: "order-service", stream: "order", seq: seq, time: now,
            body: .order(OrderEvent(order: order, previous: .placed, reason: nil, at: now))))
    }

    static func letters(_ subscriber: BusSubscriber, _ prefix: String) -> [DeadLetter] {
        subscriber.on(prefix).compactMap { if case .deadLetter(let d) = $0.body { d } else { nil } }
    }

    @Test("deployed: a forged kitchen.ready or order.ready (next seq, another service's name) and a kitchen.ready from mallory change nothing")
    func deployedForgeries() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        try platform.keys!.add(name: "kiosk-macs", role: .kiosk, cafeId: "caffe-macs")
        try platform.keys!.add(name: "kitchen-macs", role: .kitchen, cafeId: "caffe-macs")
        // A real service key that runs beacon-ingest, under the name of the intruder.
        try platform.keys!.add(name: "mallory", role: .service, service: "beacon-ingest")
        try platform.startAll()
        let context = try Context()
        let watcher = try BusSubscriber(platform, context, as: "operator", prefixes: ["deadletter.", "order.ready.", "kitchen.ready.", "notify."])
        let orders = try platform.client("order-service", as: "kiosk-macs", context: context)
        let operatorOrders = try platform.client("order-service", as: "operator", context: context)
        let kitchen = try platform.client("kitchen-display", as: "kitchen-macs", context: context)
        let asIngest = try platform.busPublisher(context, as: "beacon-ingest")
        let asKitchen = try platform.busPublisher(context, as: "kitchen-display")
        let asMallory = try platform.busPublisher(context, as: "mallory")
        let unkeyed = try platform.busPublisher(context)
        defer { watcher.close(); [orders, operatorOrders, kitchen].forEach { $0.close() }; [asIngest, asKitchen, asMallory, unkeyed].forEach { $0.close() } }

        let order = try Self.placeOrder(orders, key: "forgery-deployed")
        let ticket = "\(order.orderId):grill"
        _ = try eventually("the ticket on the kitchen screen") {
            try kitchen.call(Op.kdsTickets, TicketsQuery(cafeId: "caffe-macs"), as: TicketsReply.self).tickets.contains { $0.ticketId == ticket } ? true : nil
        }
        let before = try operatorOrders.call(Op.orderGet, OrderQuery(orderId: order.orderId), as: OrderView.self).order
        let nextKitchen = try platform.lastSeq("kitchen-display", "kitchen", context) + 1
        let nextOrder = try platform.lastSeq("order-service", "order", context) + 1
        var ready = order
        ready.state = .ready

        try platform.publish([(asIngest, Self.kitchenReady(order, source: "kitchen-display", seq: nextKitchen)),
                              (asKitchen, Self.orderEvent(.orderReady, ready, seq: nextOrder)),
                              (asMallory, Self.kitchenReady(order, source: "mallory", seq: 1)),
                              (unkeyed, Self.kitchenReady(order, source: "kitchen-display", seq: nextKitchen))],
                             pumping: [watcher], timeout: 15) {
            let bus = Self.letters(watcher, "deadletter.bus.")
            return bus.contains { $0.message.contains("beacon-ingest (service) may not publish as source \"kitchen-display\"") }
                && bus.contains { $0.message.contains("kitchen-display (service) may not publish as source \"order-service\"") }
                && Self.letters(watcher, "deadletter.order-service.").contains { $0.message.contains("\"mallory\" runs beacon-ingest") }
        }
        let refusal = try #require(Self.letters(watcher, "deadletter.order-service.").first { $0.message.contains("mallory") })
        #expect(refusal.code == "auth.forbidden" && refusal.message.contains("stream kitchen belongs to kitchen-display"), "\(refusal)")
        // Nothing moved: the order as it was, no order.ready, no notification, no cursor for mallory.
        #expect(try operatorOrders.call(Op.orderGet, OrderQuery(orderId: order.orderId), as: OrderView.self).order == before)
        #expect(watcher.on("order.ready.").isEmpty && watcher.on("notify.").isEmpty)
        // mallory's key is a real service key: the bus forwards what it publishes under its own name;
        // the consumers refuse it. Nothing claiming to be kitchen-display got through.
        #expect(watcher.on("kitchen.ready.").allSatisfy { $0.source == "mallory" })
        let orderHealth = try platform.healthDetails("order-service", context)
        #expect(orderHealth["cursor.mallory/kitchen"] == nil && orderHealth["events.refused"] != "0", "\(orderHealth)")

        // The kitchen's real kitchen.ready takes the seq the forgery claimed, and is applied.
        _ = try kitchen.call(Op.kdsStart, TicketCommand(ticketId: ticket), as: TicketView.self)
        _ = try kitchen.call(Op.kdsBump, TicketCommand(ticketId: ticket), as: TicketView.self)
        _ = try eventually("the order ready after the real kitchen.ready") {
            try operatorOrders.call(Op.orderGet, OrderQuery(orderId: order.orderId), as: OrderView.self).order.state == .ready ? true : nil
        }
        try watcher.pump()
        let real = watcher.on("kitchen.ready.").filter { $0.source != "mallory" }
        #expect(real.count == 1 && real.first?.source == "kitchen-display" && (real.first?.seq ?? 0) >= nextKitchen, "\(real)")
    }

    @Test("plain: a kitchen.ready from mallory is dead-lettered; a forged order.placed at the next seq loses no real order")
    func plainForgeries() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let watcher = try BusSubscriber(platform, context, as: nil, prefixes: ["deadletter.", "order.placed."])
        let orders = try platform.client("order-service", as: "developer", context: context)
        let kitchen = try platform.client("kitchen-display", as: "developer", context: context)
        let publisher = try platform.busPublisher(context)
        defer { watcher.close(); [orders, kitchen].forEach { $0.close() }; publisher.close() }

        let order = try Self.placeOrder(orders, key: "forgery-plain-1")
        _ = try eventually("the first order's ticket") {
            try kitchen.call(Op.kdsTickets, TicketsQuery(cafeId: "caffe-macs"), as: TicketsReply.self).tickets.contains { $0.orderId == order.orderId } ? true : nil
        }
        let before = try orders.call(Op.orderGet, OrderQuery(orderId: order.orderId), as: OrderView.self).order
        try platform.publish([(publisher, Self.kitchenReady(order, source: "mallory", seq: 1))], pumping: [watcher]) {
            Self.letters(watcher, "deadletter.order-service.").contains { $0.message.contains("source \"mallory\" is not a service of the platform") }
        }
        #expect(try orders.call(Op.orderGet, OrderQuery(orderId: order.orderId), as: OrderView.self).order == before)
        #expect(try platform.healthDetails("order-service", context)["cursor.mallory/kitchen"] == nil)

        // A forged order.placed under order-service's name takes its next seq; kitchen-display,
        // which cannot tell, applies it. The real order placed next gets that same seq.
        let next = try platform.lastSeq("order-service", "order", context) + 1
        var ghost = order
        ghost.orderId = "ord-forged-ghost"
        try publisher.send(multipart: Self.orderEvent(.orderPlaced, ghost, seq: next))
        _ = try eventually("the forgery applied by kitchen-display", timeout: 5) {
            try platform.healthDetails("kitchen-display", context)["cursor.order-service/order"] == "\(next)" ? true : nil
        }
        let real = try Self.placeOrder(orders, key: "forgery-plain-2")
        _ = try eventually("the real order's ticket, though its seq was taken") {
            try kitchen.call(Op.kdsTickets, TicketsQuery(cafeId: "caffe-macs"), as: TicketsReply.self).tickets.contains { $0.orderId == real.orderId } ? true : nil
        }
        try watcher.pump()
        let placed = watcher.on("order.placed.").filter { $0.source == "order-service" }
        #expect(placed.first { if case .order(let e) = $0.body { e.order.orderId == real.orderId } else { false } }?.seq == next,
                "the real order.placed had the forged seq")
        let health = try platform.healthDetails("kitchen-display", context)
        // Checked against order-service's outbox; or, had a heartbeat come between, the consumer
        // saw its cursor ahead of the publisher and started over from the outbox.
        #expect(health["events.seqCollisionsRecovered"] == "1" || platform.log("kitchen-display").contains("publisher started over"), "\(health)")
    }
}
