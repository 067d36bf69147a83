import Campus
import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// notification-service through the real executables: every catalog language on the wire, every
/// order notification kind, region reminders on arrival, and the cafectl flow a new user follows.
/// (NotificationRecoveryTests: kill -9 and replayed events.)
@Suite("Notifications through real processes", .serialized)
struct NotificationTests {
    /// Places an app order at the coffee station in the first free window; the order.
    static func placeOrder(_ orders: RequestClient, key: String, user: String, device: String?) throws -> OrderSnapshot {
        let windows = try orders.call(Op.windowsList, WindowsRequest(cafeId: "macs-coffee", locale: "en_US"), as: WindowsReply.self)
        let window = try #require(windows.windows.first { $0.remaining > 0 })
        let reservation = try orders.call(Op.windowReserve, ReserveRequest(cafeId: "macs-coffee", start: window.start, userId: user, locale: "en_US"), as: ReservationView.self)
        return try orders.call(Op.orderPlace, PlaceOrderRequest(
            idempotencyKey: key, channel: .app, userId: user, deviceId: device, cafeId: "macs-coffee", reservationId: reservation.reservationId,
            items: [OrderItemRequest(itemId: "latte", quantity: 1)], paymentToken: "tok_abcdefabcdefabcdef", locale: "en_US"), as: OrderView.self).order
    }

    /// The chef bumps every station's ticket of the order (the kitchen may still be catching up).
    static func bump(_ kitchen: RequestClient, _ order: OrderSnapshot) throws {
        for station in Set(order.lines.map(\.station)) {
            _ = try eventually("ticket \(order.orderId):\(station) bumped") {
                try? kitchen.call(Op.kdsBump, TicketCommand(ticketId: "\(order.orderId):\(station)"), as: TicketView.self)
            }
        }
    }

    static func inbox(_ notify: RequestClient, _ device: String) throws -> [DeviceNotification] {
        try notify.call(Op.inboxList, InboxQuery(deviceId: device, limit: 500), as: InboxReply.self).notifications
    }

    @Test("one ready order, every device of the user in its own language; denied and unknown devices recorded, not sent")
    func everyLanguage() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["notify."], probe: platform.busPub)
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"), timeoutMilliseconds: 2_000)
        let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"), timeoutMilliseconds: 2_000)
        let notify = RequestClient(context: context, endpoint: platform.endpoint("notification-service"), timeoutMilliseconds: 2_000)
        defer { [orders, kitchen, notify].forEach { $0.close() }; watcher.close() }
        // (device, language, locale, expected title, text language)
        let devices = [
            ("mia-en", "en", "en_US", "Your order is ready", "en"),
            ("mia-de", "de", "de_DE", "Deine Bestellung ist fertig", "de"),
            ("mia-fr", "fr-CA", "fr_FR", "Votre commande est prête", "fr"),
            ("mia-es", "es", "es_ES", "Tu pedido está listo", "es"),
            ("mia-ja", "ja", "ja_JP", "ご注文の準備ができました", "ja"),
            ("mia-pt", "pt-BR", "pt_BR", "Your order is ready", "en"),
        ]
        for (device, language, locale, _, _) in devices {
            let registration = try notify.call(Op.deviceRegister, RegisterDevice(deviceId: device, userId: "mia", channel: "bus", language: language, locale: locale,
                                                                                  authorization: .authorized), as: Registration.self)
            #expect(registration.notificationLanguage == (language == "pt-BR" ? "en" : String(language.prefix(2))))
        }
        _ = try notify.call(Op.deviceRegister, RegisterDevice(deviceId: "mia-off", userId: "mia", channel: "bus", language: "de", locale: "de_DE", authorization: .denied),
                            as: Registration.self)
        // Placed from a phone that never registered: it is told nothing, and that is recorded.
        let order = try Self.placeOrder(orders, key: "notify-languages", user: "mia", device: "mia-ghost")
        try Self.bump(kitchen, order)

        let times = PickupTimeFormatter()
        for (device, language, locale, title, textLanguage) in devices {
            let note = try eventually("the ready notification on \(device)") {
                try Self.inbox(notify, device).first { $0.kind == .orderReady && $0.orderId == order.orderId }
            }
            #expect(note.title == title, "\(device)")
            #expect(note.language == textLanguage, "\(device)")
            #expect(note.requestedLanguage == (textLanguage == "en" && language != "en" ? language : nil), "\(device)")
            // The café's local pickup time, written the way the device's locale writes it.
            #expect(note.body.contains(times.format(order.pickupStart, timeZone: order.timeZone, locale: locale)), "\(device): \(note.body)")
            #expect(note.body.contains(order.cafeName))
            // Worth telling until the order's no-show time: the window's end plus the coffee station's 10 minutes' grace.
            #expect(note.collapseId == order.orderId && note.expiresAt == order.pickupEnd.adding(seconds: 10 * 60) && note.expiresAt == order.noShowAt)
        }
        let refused = try eventually("both undeliverable records") { () -> [String: String]? in
            try watcher.pump()
            var reasons: [String: String] = [:]
            for message in watcher.all("notify.undeliverable.") {
                if case .notification(let note) = message.envelope.body, note.orderId == order.orderId { reasons[note.deviceId] = note.undeliverableReason }
            }
            return reasons.count == 2 ? reasons : nil
        }
        #expect(refused == ["mia-off": "authorization.denied", "mia-ghost": "device.unknown"])
        #expect(try Self.inbox(notify, "mia-off").isEmpty)
        #expect(!watcher.all("notify.delivery.").contains { $0.topic == "notify.delivery.mia-off." || $0.topic == "notify.delivery.mia-ghost." })
    }

    @Test("cancelled with its reason and no-show, from order events, in Spanish and Japanese; bad news expires a day after the window")
    func cancelledAndNoShow() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.start(busAnd: ["notification-service"])
        let context = try Context()
        let notify = RequestClient(context: context, endpoint: platform.endpoint("notification-service"), timeoutMilliseconds: 2_000)
        let publisher = try platform.busPublisher(context)
        defer { notify.close(); publisher.close() }
        for (device, language, locale) in [("sofia-es", "es", "es_ES"), ("sofia-ja", "ja", "ja_JP")] {
            _ = try notify.call(Op.deviceRegister, RegisterDevice(deviceId: device, userId: "sofia", channel: "bus", language: language, locale: locale,
                                                                  authorization: .authorized), as: Registration.self)
        }
        let now = Timestamp(Date())
        func order(_ id: String, _ state: OrderState) -> OrderSnapshot {
            OrderSnapshot(orderId: id, cafeId: "munich-cafe", cafeName: "Café München", timeZone: "Europe/Berlin", currency: "EUR", channel: .app,
                          userId: "sofia", deviceId: nil, state: state, lines: [], total: 0, pickupStart: now.adding(seconds: 600),
                          pickupEnd: now.adding(seconds: 1500), placedAt: now, customerHere: false)
        }
        func event(_ seq: UInt64, _ type: EventType, _ snapshot: OrderSnapshot, reason: String?) -> Envelope {
            Envelope(type: type, source: "order-service-fake", stream: "order", seq: seq, time: now, body: .order(OrderEvent(order: snapshot, previous: .accepted, reason: reason, at: now)))
        }
        func health() throws -> [String: String] { try notify.call(Op.health, Empty(), as: HealthStatus.self).details }
        // Sent until applied: the bus passes the subscription up to this publisher after a moment.
        let placed = event(1, .orderPlaced, order("ord-a", .placed), reason: nil)
        _ = try eventually("the publisher's first event applied") {
            try publisher.send(multipart: [Data(Topic.order(state: "placed", cafe: "munich-cafe").utf8), Wire.encode(placed)])
            return try health()["cursor.order-service-fake/order"] == "1" ? true : nil
        }
        try publisher.send(multipart: [Data(Topic.order(state: "cancelled", cafe: "munich-cafe").utf8),
                                       Wire.encode(event(2, .orderCancelled, order("ord-a", .cancelled), reason: "la cafetería cerró antes"))])
        try publisher.send(multipart: [Data(Topic.order(state: "noShow", cafe: "munich-cafe").utf8),
                                       Wire.encode(event(3, .orderNoShow, order("ord-b", .noShow), reason: "not collected by the end of the pickup window"))])
        _ = try eventually("both events applied") { try health()["cursor.order-service-fake/order"] == "3" ? true : nil }

        let times = PickupTimeFormatter()
        let spanish = try Self.inbox(notify, "sofia-es")
        let esTime = times.format(now.adding(seconds: 600), timeZone: "Europe/Berlin", locale: "es_ES")
        #expect(spanish.map(\.kind) == [.orderCancelled, .noShow])
        #expect(spanish.first?.title == "Tu pedido se ha cancelado")
        #expect(spanish.first?.body == "Tu pedido de Café München para \(esTime) se ha cancelado. Motivo: la cafetería cerró antes")
        #expect(spanish.last?.title == "No se recogió tu pedido" && spanish.last?.orderId == "ord-b")
        #expect(spanish.allSatisfy { $0.expiresAt == now.adding(seconds: 1500 + 86400) })
        let japanese = try Self.inbox(notify, "sofia-ja")
        #expect(japanese.map(\.title) == ["ご注文はキャンセルされました", "ご注文が受け取られませんでした"])
        #expect(japanese.first?.body.contains("理由：la cafetería cerró antes") == true)
        #expect(japanese.allSatisfy { $0.body.contains(times.format(now.adding(seconds: 600), timeZone: "Europe/Berlin", locale: "ja_JP")) })
    }

    @Test("a region reminder fires when the phone walks into the café, with When In Use location only; one-shot, so once")
    func regionReminderOnArrival() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest"), timeoutMilliseconds: 2_000)
        let notify = RequestClient(context: context, endpoint: platform.endpoint("notification-service"), timeoutMilliseconds: 2_000)
        defer { [ingest, notify].forEach { $0.close() } }
        let device = "phone-remi"
        // When In Use, in the foreground: no "always" authorization anywhere.
        _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, status: DeviceStatusReport(authorization: .whenInUse, foreground: true)), as: IngestResult.self)
        _ = try notify.call(Op.deviceRegister, RegisterDevice(deviceId: device, userId: "remi", channel: "bus", language: "fr", locale: "fr_FR", authorization: .authorized),
                            as: Registration.self)
        let reminder = try notify.call(Op.reminderSet, SetReminder(deviceId: device, cafeId: "caffe-macs", text: "Prendre du lait d'avoine"), as: RegionReminder.self)
        // A typo'd café would never fire: refused.
        #expect(throws: ServiceError.self) { try notify.call(Op.reminderSet, SetReminder(deviceId: device, cafeId: "caffe-mac", text: "x"), as: RegionReminder.self) }

        // The phone ranges Caffè Macs's grill beacon, and keeps ranging as a phone does.
        let note = try eventually("the reminder on arrival", timeout: 15) { () -> DeviceNotification? in
            let now = Timestamp(Date())
            let sightings = (0..<3).map { RangingReport(uuid: ScenarioTests.uuid, major: 1, minor: 1, rssi: -62, measuredPower: -59, timestamp: now.adding(seconds: Double($0) * 0.2 - 0.6)) }
            _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, sightings: sightings), as: IngestResult.self)
            return try Self.inbox(notify, device).first { $0.kind == .regionReminder }
        }
        #expect(note.title == "Rappel à Caffè Macs" && note.body == "Prendre du lait d'avoine")
        #expect(note.reminderId == reminder.reminderId && note.collapseId == reminder.reminderId && note.cafeId == "caffe-macs")
        let done = try notify.call(Op.reminderList, ReminderQuery(deviceId: device, includeDone: true), as: ReminderList.self).reminders
        #expect(done.map(\.state) == [.fired])
        #expect(try notify.call(Op.reminderList, ReminderQuery(deviceId: device), as: ReminderList.self).reminders.isEmpty)
        // One-shot: a quiet second and a half (the phone's sightings still fresh) proves no second
        // reminder arrives; not a wait for something to happen.
        usleep(1_500_000)
        #expect(try Self.inbox(notify, device).filter { $0.kind == .regionReminder }.count == 1)
    }

    @Test("a new user with cafectl: register in German, set and cancel a reminder, order, bump, and the German notification on cafectl tail notify.")
    func cafectlFlow() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        func run(_ arguments: [String]) throws -> String {
            let result = try platform.cafectl(arguments)
            #expect(result.status == 0, "cafectl \(arguments.joined(separator: " ")): \(result.err)")
            return result.out
        }
        func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T { try JSONDecoder().decode(T.self, from: Data(text.utf8)) }

        let registered = try decode(Registration.self, try run(["notify", "register", "--device", "phone-lena", "--user", "lena", "--language", "de", "--locale", "de_DE"]))
        #expect(registered.notificationLanguage == "de" && registered.authorization == .authorized)
        let clip = try decode(Registration.self, try run(["notify", "register", "--device", "clip-lena", "--language", "de", "--locale", "de_DE", "--authorization", "ephemeral"]))
        #expect(clip.grantExpiresAt == clip.launchedAt?.adding(seconds: 8 * 3600))

        let reminder = try decode(RegionReminder.self, try run(["reminder", "set", "--device", "phone-lena", "--cafe", "macs-coffee", "--text", "Hafermilch kaufen"]))
        #expect(reminder.oneShot && reminder.state == .active)
        #expect(try decode(ReminderList.self, try run(["reminder", "list", "--device", "phone-lena"])).reminders.map(\.reminderId) == [reminder.reminderId])
        #expect(try decode(RegionReminder.self, try run(["reminder", "cancel", reminder.reminderId, "--device", "phone-lena"])).state == .cancelled)
        #expect(try decode(ReminderList.self, try run(["reminder", "list", "--device", "phone-lena"])).reminders.isEmpty)

        // Refusals: typed codes, exit 1, nothing changed.
        for (arguments, code) in [
            (["reminder", "set", "--device", "phone-lena", "--cafe", "macs-coffee", "--text", " "], "notify.invalidReminder"),
            (["reminder", "cancel", "rem_nope", "--device", "phone-lena"], "notify.unknownReminder"),
            (["inbox", "--device", "phone-nobody"], "notify.unknownDevice"),
            (["inbox", "--device", "phone-lena", "--since", "ntf_nope"], "notify.unknownNotification"),
            (["notify", "register", "--device", "phone-x", "--channel", "sms"], "notify.channelUnsupported"),
            (["notify", "register", "--device", "phone-x", "--channel", "apns"], "request.invalidField"),
            (["notify", "register", "--device", "phone-x", "--channel", "apns", "--apns-token", "abc"], "request.invalidField"),
            (["notify", "register", "--device", "phone-x", "--language", "not a tag"], "notify.invalidLanguage"),
        ] {
            let result = try platform.cafectl(arguments)
            #expect(result.status == 1 && result.err.contains(code), "cafectl \(arguments.joined(separator: " ")): \(result.err)")
        }
        #expect(try platform.cafectl(["inbox", "--device", "phone-x"]).err.contains("notify.unknownDevice"), "a refused registration registered nothing")

        // cafectl tail notify. is listening before the order is bumped.
        let subscriptionsBefore = try busSubscriptionChanges(platform, context: context)
        let tail = try TailProcess(platform, ["notify."])
        defer { tail.stop() }
        _ = try eventually("the tail's subscription reached the bus") {
            try busSubscriptionChanges(platform, context: context) > subscriptionsBefore ? true : nil
        }
        let reservation = try decode(ReservationView.self, try run(["reserve", "--cafe", "macs-coffee", "--user", "lena"]))
        let placed = try decode(OrderView.self, try run(["order", "place", "--cafe", "macs-coffee", "--reservation", reservation.reservationId, "--item", "latte",
                                                         "--user", "lena", "--device", "phone-lena", "--payment", "tok_abcdefabcdefabcdef"]))
        for station in Set(placed.order.lines.map(\.station)) {
            _ = try eventually("cafectl kds bump") {
                try platform.cafectl(["kds", "bump", "\(placed.order.orderId):\(station)"]).status == 0 ? true : nil
            }
        }
        let time = PickupTimeFormatter().format(placed.order.pickupStart, timeZone: placed.order.timeZone, locale: "de_DE")
        let line = try eventually("the German ready notification on cafectl tail") { () -> String? in
            let text = (try? String(contentsOf: tail.out, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").first { $0.contains("\"notify.delivery.phone-lena.\"") && $0.contains("orderReady") }.map(String.init)
        }
        let envelope = try Wire.decodeEnvelope(Data(try #require(line.split(separator: "\"envelope\":", maxSplits: 1).last).dropLast().utf8))
        guard case .notification(let note) = envelope.body else { Issue.record("not a notification: \(line)"); return }
        #expect(note.title == "Deine Bestellung ist fertig")
        #expect(note.body == "Deine Bestellung von \(placed.order.cafeName) ist abholbereit. Abholzeit: \(time).")
        #expect(note.collapseId == placed.order.orderId)
        // And in the inbox, readable since an id.
        let inbox = try decode(InboxReply.self, try run(["inbox", "--device", "phone-lena"]))
        let ready = try #require(inbox.notifications.first { $0.kind == .orderReady })
        #expect(ready.notificationId == note.notificationId)
        let after = try decode(InboxReply.self, try run(["inbox", "--device", "phone-lena", "--since", ready.notificationId]))
        #expect(!after.notifications.contains { $0.notificationId == ready.notificationId })
    }
}
