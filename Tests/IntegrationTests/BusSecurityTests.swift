import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// The bus's authorization in deployed mode (issue 13), through its sockets: who may publish
/// what, who may subscribe to what, and revocation without a restart.
@Suite(.serialized)
struct BusSecurityTests {
    static func kitchenReady(source: String, seq: UInt64 = 1, order: String = "ord-forged") -> Envelope {
        let now = Timestamp(Date())
        return Envelope(type: .kitchenReady, source: source, stream: "kitchen", seq: seq, time: now,
                        body: .kitchen(KitchenEvent(orderId: order, cafeId: "caffe-macs", ticketId: nil, station: nil, at: now)))
    }

    static func orderPlaced(device: String) -> Envelope {
        let now = Timestamp(Date())
        let order = OrderSnapshot(orderId: "ord-1", cafeId: "caffe-macs", cafeName: "Caffè Macs", timeZone: "America/Los_Angeles", currency: "USD",
                                  channel: .app, userId: "bob", deviceId: device, state: .placed, lines: [], total: 0, pickupStart: now,
                                  pickupEnd: now, placedAt: now, customerHere: false)
        return Envelope(type: .orderPlaced, source: "order-service", stream: "order", seq: 1, time: now,
                        body: .order(OrderEvent(order: order, previous: nil, reason: nil, at: now)))
    }

    static func delivery(to device: String, seq: UInt64) -> Envelope {
        let now = Timestamp(Date())
        return Envelope(type: .notifyDelivery, source: "notification-service", stream: "notify", seq: seq, time: now,
                        body: .notification(DeviceNotification(notificationId: "n-\(device)-\(seq)", deviceId: device, kind: .orderReady, collapseId: "ord-1",
                                                               title: "Ready", body: "Your order is ready", language: "en", orderId: "ord-1",
                                                               expiresAt: now.adding(seconds: 3600), createdAt: now, undeliverableReason: nil)))
    }

    @Test("a service key publishing under another service's name is dropped, counted and dead-lettered; its own name passes")
    func sourceMismatch() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        try platform.start(busAnd: [])
        let context = try Context()
        let watcher = try BusSubscriber(platform, context, as: "operator", prefixes: ["deadletter.bus.", "kitchen.", "sighting."])
        let publisher = try platform.busPublisher(context, as: "beacon-ingest")
        defer { watcher.close(); publisher.close() }
        let forged = Self.kitchenReady(source: "kitchen-display")
        var own = Self.kitchenReady(source: "beacon-ingest")
        own.id = "own-name"
        try platform.publish([(publisher, Platform.frames("kitchen.ready.caffe-macs.", forged)), (publisher, Platform.frames("sighting.s0.", own))],
                             pumping: [watcher]) {
            !watcher.on("deadletter.bus.").isEmpty && watcher.on("sighting.").contains { $0.id == "own-name" }
        }
        #expect(watcher.on("kitchen.").isEmpty, "the forgery never reaches its topic's subscribers")
        guard case .deadLetter(let letter) = watcher.on("deadletter.bus.").first?.body else { Issue.record("no dead letter"); return }
        #expect(letter.service == "bus" && letter.code == "auth.forbidden" && letter.topic == "kitchen.ready.caffe-macs.", "\(letter)")
        #expect(letter.message.contains("beacon-ingest (service) may not publish as source \"kitchen-display\""), "\(letter.message)")
        #expect(letter.excerpt.contains(forged.id))
        let health = try platform.healthDetails("bus", context)
        #expect(Int(health["refused.publications.sourceMismatch"] ?? "") ?? 0 >= 1, "\(health)")
        #expect(health["refused.publications.notService"] == "0" && health["security"] == "deployed", "\(health)")
    }

    @Test("phones and operators cannot publish at all; a plain socket and an unknown key get no session")
    func nonServicePublishers() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        try platform.keys!.add(name: "phone-1", role: .phone, deviceId: "dev-1", userId: "ann")
        try platform.start(busAnd: [])
        let context = try Context()
        let watcher = try BusSubscriber(platform, context, as: "operator", prefixes: ["deadletter.bus.", "kitchen.", "heartbeat."])
        let phone = try platform.busPublisher(context, as: "phone-1")
        let operatorKey = try platform.busPublisher(context, as: "operator")
        let plain = try platform.busPublisher(context)
        let stranger = try Socket(context, .pub)
        try stranger.setLinger(milliseconds: 0)
        let busKey = try #require(platform.keys!.registry().principal(named: "bus")?.publicKey)
        let unknown = try CurveKeyPair.generate()
        try stranger.setCurveClient(serverKey: busKey, publicKey: unknown.publicKey, secretKey: unknown.secretKey)
        try stranger.connect(platform.busPub)
        let control = try platform.busPublisher(context, as: "kitchen-display")
        defer { [watcher].forEach { $0.close() }; [phone, operatorKey, plain, stranger, control].forEach { $0.close() } }

        // Each claims its own name, so only the role can refuse it; kitchen-display's own heartbeat is the control.
        let beat = { (source: String) in
            Envelope(type: .heartbeat, source: source, stream: "heartbeat", seq: 1, time: Timestamp(Date()),
                     body: .heartbeat(Heartbeat(service: "kitchen-display", streams: [:], replayEndpoint: "tcp://127.0.0.1:1")))
        }
        let deadline = Date().addingTimeInterval(10)
        var refusedBoth = false
        while Date() < deadline && !refusedBoth {
            try phone.send(multipart: Platform.frames("kitchen.ready.caffe-macs.", Self.kitchenReady(source: "phone-1")), dontWait: true)
            try operatorKey.send(multipart: Platform.frames("heartbeat.operator.", beat("operator")), dontWait: true)
            try plain.send(multipart: Platform.frames("kitchen.ready.caffe-macs.", Self.kitchenReady(source: "kitchen-display")), dontWait: true)
            try stranger.send(multipart: Platform.frames("kitchen.ready.caffe-macs.", Self.kitchenReady(source: "kitchen-display")), dontWait: true)
            try control.send(multipart: Platform.frames("heartbeat.kitchen-display.", beat("kitchen-display")), dontWait: true)
            try watcher.pump(milliseconds: 100)
            let letters = watcher.on("deadletter.bus.").compactMap { if case .deadLetter(let d) = $0.body { d } else { nil } }
            refusedBoth = letters.contains { $0.message.hasPrefix("phone-1 (phone) may not publish") }
                && letters.contains { $0.message.hasPrefix("operator (operator) may not publish") }
                && !watcher.on("heartbeat.kitchen-display.").isEmpty
        }
        #expect(refusedBoth, "\(watcher.received.map(\.topic))")
        #expect(watcher.on("kitchen.").isEmpty)
        #expect(watcher.on("heartbeat.").allSatisfy { $0.source == "kitchen-display" })
        let health = try platform.healthDetails("bus", context)
        #expect(Int(health["refused.publications.notService"] ?? "") ?? 0 >= 2, "\(health)")
        // The unknown key was refused at the handshake (a plain socket never gets as far as ZAP).
        #expect(Int(health["zap.refused"] ?? "") ?? 0 >= 1, "\(health)")
        #expect(health["refused.publications.unknownKey"] == "0", "no message of theirs ever reached the check: \(health)")
    }

    @Test("a phone's subscriptions to order. or region. deliver nothing; its own notify.delivery.<device>. works; a kiosk gets nothing")
    func phoneSubscriptions() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        try platform.keys!.add(name: "phone-1", role: .phone, deviceId: "dev-1", userId: "ann")
        try platform.keys!.add(name: "kiosk-macs", role: .kiosk, cafeId: "caffe-macs")
        try platform.start(busAnd: [])
        let context = try Context()
        let phone = try BusSubscriber(platform, context, as: "phone-1",
                                      prefixes: ["order.", "region.", "notify.delivery.", "notify.delivery.dev-2.", "heartbeat.", "notify.delivery.dev-1."])
        let kiosk = try BusSubscriber(platform, context, as: "kiosk-macs", prefixes: ["order.", "notify.delivery.dev-1."])
        let operatorWatch = try BusSubscriber(platform, context, as: "operator", prefixes: ["order.", "notify."])
        let notifications = try platform.busPublisher(context, as: "notification-service")
        let orders = try platform.busPublisher(context, as: "order-service")
        defer { [phone, kiosk, operatorWatch].forEach { $0.close() }; [notifications, orders].forEach { $0.close() } }

        let placed = Self.orderPlaced(device: "dev-2")
        let mine = Self.delivery(to: "dev-1", seq: 1), theirs = Self.delivery(to: "dev-2", seq: 2)
        try platform.publish([(notifications, Platform.frames(Topic.notifyDelivery(device: "dev-2"), theirs)),
                              (notifications, Platform.frames(Topic.notifyDelivery(device: "dev-1"), mine)),
                              (orders, Platform.frames("order.placed.caffe-macs.", placed))],
                             pumping: [phone, kiosk, operatorWatch], timeout: 15) {
            // Done once the operator has seen the other device's notification and the order, and the phone its own.
            !phone.on("notify.delivery.dev-1.").isEmpty && !operatorWatch.on("order.").isEmpty && !operatorWatch.on("notify.delivery.dev-2.").isEmpty
        }
        // A little longer, so anything wrongly let through would have arrived too.
        for _ in 0..<5 {
            try notifications.send(multipart: Platform.frames(Topic.notifyDelivery(device: "dev-2"), theirs), dontWait: true)
            try orders.send(multipart: Platform.frames("order.placed.caffe-macs.", placed), dontWait: true)
            try phone.pump(milliseconds: 100)
            try kiosk.pump(milliseconds: 0)
        }
        #expect(Set(phone.received.map(\.topic)) == ["notify.delivery.dev-1."], "the phone got only its own device's notifications")
        #expect(kiosk.received.isEmpty, "a kiosk subscribes to nothing: \(kiosk.received.map(\.topic))")
        let health = try platform.healthDetails("bus", context)
        // order., region., notify.delivery., notify.delivery.dev-2., heartbeat. from the phone; two from the kiosk.
        #expect(Int(health["refused.subscriptions.phone"] ?? "") ?? 0 >= 5 && Int(health["refused.subscriptions.kiosk"] ?? "") ?? 0 >= 2, "\(health)")
    }

    @Test("a subscriber holds at most 64 prefixes of at most 256 bytes: the rest are refused, counted by reason, never forwarded; what it holds still flows")
    func subscriptionBudget() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        try platform.start(busAnd: [])
        let context = try Context()
        let long = "order." + String(repeating: "x", count: 300)
        let greedy = try BusSubscriber(platform, context, as: "operator", prefixes: ["order."] + (1..<70).map { "region.event.p\($0)." } + [long])
        let orders = try platform.busPublisher(context, as: "order-service")
        defer { greedy.close(); orders.close() }
        let placed = Self.orderPlaced(device: "dev-2")
        try platform.publish([(orders, Platform.frames("order.placed.caffe-macs.", placed))], pumping: [greedy]) { !greedy.on("order.").isEmpty }
        let health = try platform.healthDetails("bus", context)
        // 70 short prefixes: 64 held, 6 refused; the long one refused whatever it held.
        #expect(health["refused.subscriptions.tooMany"] == "6" && health["refused.subscriptions.prefixTooLong"] == "1", "\(health)")
        #expect(health["refused.subscriptions.tooFast"] == "0" && health["refused.subscriptions.tooManyBytes"] == "0", "\(health)")
        #expect(Int(health["subscriptions.upstream"] ?? "") ?? 0 <= 64 + 8, "only held prefixes go to the publishers: \(health)")
        #expect(platform.log("bus").components(separatedBy: "\n").filter { $0.contains("subscription over budget") }.count == 2)
    }

    @Test("several subscribers to one prefix: one leaving, or a refused one leaving, keeps the prefix flowing to the others")
    func sharedPrefix() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        try platform.keys!.add(name: "phone-1", role: .phone, deviceId: "dev-1", userId: "ann")
        try platform.start(busAnd: [])
        let context = try Context()
        let first = try BusSubscriber(platform, context, as: "operator", prefixes: ["order."])
        let second = try BusSubscriber(platform, context, as: "operator", prefixes: ["order."])
        let phone = try BusSubscriber(platform, context, as: "phone-1", prefixes: ["order."])
        let orders = try platform.busPublisher(context, as: "order-service")
        defer { first.close(); orders.close() }
        func placed(_ id: String) -> [Data] {
            var envelope = Self.orderPlaced(device: "dev-2")
            envelope.id = id
            return Platform.frames("order.placed.caffe-macs.", envelope)
        }
        try platform.publish([(orders, placed("before"))], pumping: [first, second, phone]) {
            first.on("order.").contains { $0.id == "before" } && second.on("order.").contains { $0.id == "before" }
        }
        #expect(phone.received.isEmpty)
        second.close()
        phone.close()
        // libzmq hands the bus one anonymous release per prefix of each ended connection.
        _ = try eventually("both releases seen by the bus") { try platform.healthDetails("bus", context)["subscriptions.held"] == "1" ? true : nil }
        #expect(try platform.healthDetails("bus", context)["subscriptions.upstream"] == "1")
        try platform.publish([(orders, placed("after"))], pumping: [first]) { first.on("order.").contains { $0.id == "after" } }
        first.close()
        _ = try eventually("the last subscriber gone") {
            let health = try platform.healthDetails("bus", context)
            return health["subscriptions.held"] == "0" && health["subscriptions.upstream"] == "0" ? true : nil
        }
        #expect(try platform.healthDetails("bus", context)["subscribers.cut.unpaired"] == nil, "no connection was ever cut")
    }

    @Test("a subscriber sending a message that is no subscription makes the bus cut every subscriber, who reconnect and get their topics again")
    func unpairedMessage() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        try platform.start(busAnd: [])
        let context = try Context()
        let watcher = try BusSubscriber(platform, context, as: "operator", prefixes: ["order."])
        let orders = try platform.busPublisher(context, as: "order-service")
        // An XSUB peer on the XPUB side can send what a SUB cannot: after it, libzmq 4.3 pairs the
        // following subscription messages with the wrong connections.
        let raw = try Socket(context, .xsub)
        try raw.setLinger(milliseconds: 0)
        try platform.security(as: "operator").secureClient(raw, server: "bus")
        try raw.connect(platform.busSub)
        defer { watcher.close(); orders.close(); raw.close() }
        func placed(_ id: String) -> [Data] {
            var envelope = Self.orderPlaced(device: "dev-2")
            envelope.id = id
            return Platform.frames("order.placed.caffe-macs.", envelope)
        }
        try platform.publish([(orders, placed("before"))], pumping: [watcher]) { watcher.on("order.").contains { $0.id == "before" } }
        try raw.send(Array("\u{2}not a subscription".utf8))
        _ = try eventually("the bus cut its subscribers") {
            try platform.healthDetails("bus", context)["subscribers.cut.unpaired"] == "1" ? true : nil
        }
        try platform.publish([(orders, placed("after"))], pumping: [watcher]) { watcher.on("order.").contains { $0.id == "after" } }
    }
}
