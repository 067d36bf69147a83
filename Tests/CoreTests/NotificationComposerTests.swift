import Campus
import Messages
import NotifyCore
import Testing

/// An order at Caffè Macs (Cupertino) whose window is 2020-06-25 09:41–09:56 local time.
private func order(_ state: OrderState = .ready, deviceId: String? = "phone-1", userId: String? = "alice") -> OrderSnapshot {
    let start = Timestamp(rfc3339: "2020-06-25T16:41:00.000Z")!
    return OrderSnapshot(orderId: "ord-1", cafeId: "caffe-macs", cafeName: "Caffè Macs", timeZone: "America/Los_Angeles", currency: "USD", channel: .app,
                         userId: userId, deviceId: deviceId, state: state, lines: [], total: 0, pickupStart: start, pickupEnd: start.adding(seconds: 900),
                         placedAt: start.adding(seconds: -1800), customerHere: false, noShowAt: start.adding(seconds: 1500))
}

private func device(_ authorization: NotificationAuthorization = .authorized, language: String = "en", locale: String = "en_US", launchedAt: Timestamp) -> DeviceRegistration {
    DeviceRegistration(deviceId: "phone-1", userId: "alice", channel: "bus", language: language, locale: locale, authorization: authorization, launchedAt: launchedAt)
}

@Suite("Notifications: composing one device's notification")
struct NotificationComposerTests {
    static let start = order().pickupStart
    /// Ten minutes before the window: the kitchen has just bumped the order.
    static let bumped = start.adding(seconds: -600)

    @Test("ready, in each catalog language, with the café's local pickup time in the device's locale", arguments: [
        ("en", "en_US", "Your order is ready", "Your order from Caffè Macs is ready for pickup. Pickup window: Jun 25, 2020 at 9:41\u{202F}AM."),
        ("de", "de_DE", "Deine Bestellung ist fertig", "Deine Bestellung von Caffè Macs ist abholbereit. Abholzeit: 25.06.2020, 09:41."),
        ("fr", "fr_FR", "Votre commande est prête", "Votre commande de Caffè Macs est prête à être retirée. Créneau de retrait : 25 juin 2020 à 09:41."),
        ("ja", "ja_JP", "ご注文の準備ができました", "Caffè Macsのご注文の準備ができました。受け取り時間：2020/06/25 9:41"),
    ])
    func readyLocalized(language: String, locale: String, title: String, body: String) {
        let note = NotificationComposer().compose(.order(.orderReady, order(), reason: nil), deviceId: "phone-1",
                                                  registration: device(language: language, locale: locale, launchedAt: t0), notificationId: "ntf-1", now: Self.bumped)
        #expect(note.title == title)
        #expect(note.body == body)
        #expect(note.language == language && note.requestedLanguage == nil)
        #expect(note.undeliverableReason == nil)
    }

    @Test("every catalog language and every kind composes, with the time as the device's locale writes it",
          arguments: ["en_US", "de_DE", "fr_FR", "es_ES", "ja_JP"], [NotificationKind.orderReady, .orderCancelled, .pickupReminder, .noShow])
    func everyLanguage(locale: String, kind: NotificationKind) {
        let language = String(locale.prefix(2))
        let note = NotificationComposer().compose(.order(kind, order(), reason: nil), deviceId: "phone-1",
                                                  registration: device(language: language, locale: locale, launchedAt: t0), notificationId: "n", now: Self.bumped)
        let time = PickupTimeFormatter().format(Self.start, timeZone: "America/Los_Angeles", locale: locale)
        #expect(note.language == language)
        #expect(note.body.contains(time) && note.body.contains("Caffè Macs"))
        #expect(note == NotificationComposer().compose(.order(kind, order(), reason: nil), deviceId: "phone-1",
                                                       registration: device(language: language, locale: locale, launchedAt: t0), notificationId: "n", now: Self.bumped),
                "composing is deterministic")
    }

    @Test("a language without a catalog gets English, and the notification says which was asked for")
    func fallbackIsRecorded() {
        let note = NotificationComposer().compose(.order(.orderReady, order(), reason: nil), deviceId: "phone-1",
                                                  registration: device(language: "pt-BR", locale: "pt_BR", launchedAt: t0), notificationId: "n", now: Self.bumped)
        #expect(note.language == "en" && note.requestedLanguage == "pt-BR")
        #expect(note.title == "Your order is ready")
        // The time still follows the device's locale.
        #expect(note.body.hasSuffix(PickupTimeFormatter().format(Self.start, timeZone: "America/Los_Angeles", locale: "pt_BR") + "."))
    }

    @Test("collapse id and expiry: ready until its no-show time, a reminder until the window ends, bad news a day more", arguments: [
        (.orderReady, 1500), (.pickupReminder, 900), (.orderCancelled, 86_400 + 900), (.noShow, 86_400 + 900),
        (.orderDelayed, 86_400 + 900), (.orderLate, 86_400 + 900),
    ] as [(NotificationKind, Double)])
    func collapseAndExpiry(kind: NotificationKind, expirySeconds: Double) {
        let note = NotificationComposer().compose(.order(kind, order(), reason: "kitchen closed"), deviceId: "phone-1",
                                                  registration: device(launchedAt: t0), notificationId: "n", now: Self.bumped)
        #expect(note.collapseId == "ord-1" && note.orderId == "ord-1" && note.kind == kind && note.cafeId == "caffe-macs")
        #expect(note.expiresAt == Self.start.adding(seconds: expirySeconds))
    }

    @Test("a ready order without a no-show time is told until the window's end plus 15 minutes")
    func readyExpiryFallback() {
        var placedBefore = order()
        placedBefore.noShowAt = nil
        #expect(NotificationComposer.expiry(.orderReady, order: placedBefore) == placedBefore.pickupEnd.adding(seconds: 900))
    }

    @Test("each recall tells once, and the ready after it tells again, under the order's collapse id")
    func onceKeys() {
        var ready = order()
        #expect(OrderNotifications.onceKey(.orderReady, ready) == "ord-1")
        ready.recalls = 2
        #expect(OrderNotifications.onceKey(.orderReady, ready) == "ord-1#2")
        #expect(OrderNotifications.onceKey(.orderDelayed, ready) == "ord-1#2")
        #expect(OrderNotifications.onceKey(.orderLate, ready) == "ord-1")
        let note = NotificationComposer().compose(.order(.orderReady, ready, reason: nil), deviceId: "phone-1", registration: device(launchedAt: t0),
                                                  notificationId: "n", now: Self.bumped)
        #expect(note.collapseId == "ord-1")
    }

    @Test("which order events tell the customer what", arguments: [
        (EventType.orderReady, OrderState.ready, OrderState?.some(.preparing), NotificationKind?.some(.orderReady)),
        (.orderPreparing, .preparing, .ready, .orderDelayed),
        (.orderPreparing, .preparing, .accepted, nil),
        (.orderOverdue, .preparing, .preparing, .orderLate),
        (.orderApproaching, .accepted, .accepted, nil),
        (.orderArrived, .ready, .ready, nil),
        (.orderClaimed, .ready, .ready, nil),
        (.orderCancelled, .cancelled, .accepted, .orderCancelled),
    ] as [(EventType, OrderState, OrderState?, NotificationKind?)])
    func subjects(type: EventType, state: OrderState, previous: OrderState?, kind: NotificationKind?) {
        let subject = OrderNotifications.subject(type, OrderEvent(order: order(state), previous: previous, reason: nil, at: Self.bumped))
        guard case .order(let told, _, _)? = subject else { #expect(kind == nil, "\(type)"); return }
        #expect(told == kind, "\(type)")
    }

    @Test("a cancellation carries order-service's reason")
    func cancelledWithReason() {
        let note = NotificationComposer().compose(.order(.orderCancelled, order(.cancelled), reason: "the café closed early"), deviceId: "phone-1",
                                                  registration: device(language: "de", locale: "de_DE", launchedAt: t0), notificationId: "n", now: Self.bumped)
        #expect(note.body == "Deine Bestellung von Caffè Macs für 25.06.2020, 09:41 wurde storniert. Grund: the café closed early")
    }

    @Test("whether it is delivered, and why not", arguments: [
        ("authorized", Optional(device(.authorized, launchedAt: t0)), bumped, nil),
        ("provisional", device(.provisional, launchedAt: t0), bumped, nil),
        ("device never registered", nil, bumped, "device.unknown"),
        ("denied", device(.denied, launchedAt: t0), bumped, "authorization.denied"),
        ("not asked yet", device(.notDetermined, launchedAt: t0), bumped, "authorization.notDetermined"),
        ("App Clip launched 10 min ago", device(.ephemeral, launchedAt: bumped.adding(seconds: -600)), bumped, nil),
        ("App Clip launched 8 h ago", device(.ephemeral, launchedAt: bumped.adding(seconds: -8 * 3600)), bumped, "ephemeral.expired"),
        // Bumped after the window: the food is ready and waiting until the no-show time, so the customer is told.
        ("window over, grace running", device(.authorized, launchedAt: t0), start.adding(seconds: 900), nil),
        ("no-show time passed", device(.authorized, launchedAt: t0), start.adding(seconds: 1500), "notification.expired"),
        ("denied and no-show time passed: the device's reason first", device(.denied, launchedAt: t0), start.adding(seconds: 1500), "authorization.denied"),
    ] as [(String, DeviceRegistration?, Timestamp, String?)])
    func delivery(label: String, registration: DeviceRegistration?, now: Timestamp, reason: String?) {
        let note = NotificationComposer().compose(.order(.orderReady, order(), reason: nil), deviceId: "phone-1", registration: registration, notificationId: "n", now: now)
        #expect(note.undeliverableReason == reason, "\(label)")
    }

    @Test("an App Clip's 8-hour grant, walked through with an injected clock: expiry, then renewal by a new launch")
    func ephemeralGrantOverTime() {
        let composer = NotificationComposer()
        var registration = device(.ephemeral, launchedAt: t0)
        // Orders whose windows are long enough that only the grant decides.
        var longOrder = order()
        longOrder.pickupEnd = t0.adding(seconds: 48 * 3600)
        longOrder.noShowAt = t0.adding(seconds: 49 * 3600)
        func reason(at seconds: Double) -> String? {
            composer.compose(.order(.orderReady, longOrder, reason: nil), deviceId: "phone-1", registration: registration, notificationId: "n", now: .at(seconds))
                .undeliverableReason
        }
        #expect(registration.grantExpiresAt == .at(8 * 3600))
        #expect(reason(at: 0) == nil)
        #expect(reason(at: 8 * 3600 - 0.001) == nil)
        #expect(reason(at: 8 * 3600) == "ephemeral.expired")
        #expect(reason(at: 8.5 * 3600) == "ephemeral.expired")
        // The clip is launched again from the code at the counter: another 8 hours from then.
        registration.launchedAt = .at(8.5 * 3600)
        #expect(registration.grantExpiresAt == .at(16.5 * 3600))
        #expect(reason(at: 8.5 * 3600) == nil)
        #expect(reason(at: 16.5 * 3600 - 0.001) == nil)
        #expect(reason(at: 16.5 * 3600) == "ephemeral.expired")
    }

    @Test("a region reminder: the user's words under a localized title naming the café; collapse id = reminder id")
    func regionReminder() {
        let reminder = RegionReminder(reminderId: "rem-1", deviceId: "phone-1", cafeId: "caffe-macs", text: "Ask about the {time} special",
                                      oneShot: true, state: .active, createdAt: t0, firedAt: nil)
        let note = NotificationComposer().compose(.regionReminder(reminder, cafeName: "Caffè Macs"), deviceId: "phone-1",
                                                  registration: device(language: "fr", locale: "fr_FR", launchedAt: t0), notificationId: "n", now: .at(60))
        #expect(note.title == "Rappel à Caffè Macs")
        #expect(note.body == "Ask about the {time} special")
        #expect(note.kind == .regionReminder && note.collapseId == "rem-1" && note.reminderId == "rem-1" && note.orderId == nil && note.expiresAt == nil)
        #expect(note.undeliverableReason == nil)
    }
}

@Suite("Notifications: which events notify whom")
struct NotificationRoutingTests {
    @Test("the kind an order state gives", arguments: [
        (OrderState.placed, nil), (.accepted, nil), (.preparing, nil), (.ready, .orderReady), (.pickedUp, nil),
        (.cancelled, .orderCancelled), (.noShow, .noShow),
    ] as [(OrderState, NotificationKind?)])
    func kinds(state: OrderState, kind: NotificationKind?) {
        #expect(OrderNotifications.kind(for: state) == kind)
    }

    @Test("what an order event notifies about: its state's kind, with the reason except for ready; arrived and claimed notify nobody", arguments: [
        (EventType.orderReady, OrderState.ready, NotificationSubject?.some(.order(.orderReady, order(.ready), reason: nil))),
        (.orderCancelled, .cancelled, .order(.orderCancelled, order(.cancelled), reason: "out of buns")),
        (.orderNoShow, .noShow, .order(.noShow, order(.noShow), reason: "out of buns")),
        (.orderAccepted, .accepted, nil),
        (.orderArrived, .ready, nil),
        (.orderClaimed, .cancelled, nil),
    ])
    func subjects(type: EventType, state: OrderState, subject: NotificationSubject?) {
        let event = OrderEvent(order: order(state), previous: nil, reason: "out of buns", at: t0)
        #expect(OrderNotifications.subject(type, event) == subject)
    }

    @Test("recipients: the order's device, then the user's other devices, each once", arguments: [
        ("phone-1", ["phone-1", "watch-1"], ["phone-1", "watch-1"]),
        ("phone-1", ["tablet", "phone-1"], ["phone-1", "tablet"]),
        (nil, ["tablet", "phone-2"], ["phone-2", "tablet"]),
        ("kiosk-guest", [], ["kiosk-guest"]),
        (nil, [], []),
    ] as [(String?, [String], [String])])
    func recipients(orderDevice: String?, userDevices: [String], expected: [String]) {
        #expect(OrderNotifications.recipients(orderDevice: orderDevice, userDevices: userDevices) == expected)
    }
}

@Suite("Notifications: pickup-window and region reminders")
struct NotifyReminderRuleTests {
    static let schedule = PickupReminderSchedule(leadSeconds: 600)

    @Test("an accepted or preparing order is reminded 10 min before its window; a ready or finished one is not", arguments: [
        (OrderState.placed, true), (.accepted, true), (.preparing, true), (.ready, false), (.pickedUp, false), (.cancelled, false), (.noShow, false),
    ])
    func action(state: OrderState, schedules: Bool) {
        let snapshot = order(state)
        let expected: PickupReminderSchedule.Action = schedules ? .schedule(at: snapshot.pickupStart.adding(seconds: -600)) : .cancel
        #expect(Self.schedule.action(for: snapshot) == expected)
    }

    /// Placed `before` seconds ahead of its window, with a 10-minute lead: the reminder is due at
    /// −600 s, so it is useful only when that comes at least 2 minutes after the order.
    @Test("no reminder the moment you order: only when it comes at least 2 minutes after placing", arguments: [
        (1800.0, true), (720, true), (719.999, false), (600, false), (300, false), (0, false),
    ])
    func useful(before: Double, schedules: Bool) {
        var snapshot = order(.accepted)
        snapshot.placedAt = snapshot.pickupStart.adding(seconds: -before)
        let expected: PickupReminderSchedule.Action = schedules ? .schedule(at: snapshot.pickupStart.adding(seconds: -600)) : .cancel
        #expect(Self.schedule.action(for: snapshot) == expected)
    }

    @Test("the notice is an option: a negative one also reminds an order placed inside the lead time")
    func notice() {
        var snapshot = order(.accepted)
        snapshot.placedAt = snapshot.pickupStart.adding(seconds: -60)
        #expect(PickupReminderSchedule(leadSeconds: 600, noticeSeconds: -3600).action(for: snapshot) == .schedule(at: snapshot.pickupStart.adding(seconds: -600)))
        #expect(PickupReminderSchedule(leadSeconds: 600).action(for: snapshot) == .cancel)
    }

    @Test("a lead of 0 turns pickup reminders off", arguments: OrderState.allCases)
    func off(state: OrderState) {
        #expect(PickupReminderSchedule(leadSeconds: 0).action(for: order(state)) == .cancel)
        #expect(PickupReminderSchedule(leadSeconds: 0).leadSeconds == nil)
    }

    @Test("due at the lead time, not a millisecond before (injected clock)", arguments: [
        (-600.001, false), (-600.0, true), (-1, true), (0, true), (3600, true),
    ])
    func due(secondsFromStart: Double, isDue: Bool) {
        let snapshot = order(.accepted)
        guard case .schedule(let at) = Self.schedule.action(for: snapshot) else { Issue.record("not scheduled"); return }
        #expect(PickupReminderSchedule.isDue(at, now: snapshot.pickupStart.adding(seconds: secondsFromStart)) == isDue)
    }

    @Test("arrival means the campus monitor's café condition satisfied", arguments: [
        ("campus", "caffe-macs", ConditionState.satisfied, "caffe-macs"),
        ("campus", "caffe-macs", .unsatisfied, nil),
        ("campus", "caffe-macs", .unknown, nil),
        ("campus", "caffe-macs.area", .satisfied, nil),
        ("campus", "caffe-macs.approach", .satisfied, nil),
        ("my-geofences", "caffe-macs", .satisfied, nil),
    ] as [(String, String, ConditionState, String?)])
    func arrival(monitor: String, identifier: String, state: ConditionState, cafe: String?) {
        let event = RegionEvent(monitor: monitor, identifier: identifier, deviceId: "phone-1", state: state, refinement: nil, flags: [], date: t0)
        #expect(RegionReminderRules.arrivalCafe(event) == cafe)
    }

    @Test("reminder text: 1–200 characters, no control characters", arguments: [
        ("Pick up the team's coffee", true), ("コーヒーを買う", true), (String(repeating: "a", count: 200), true),
        ("", false), ("   ", false), (String(repeating: "a", count: 201), false), ("two\nlines", false), ("bell\u{7}", false),
    ])
    func text(text: String, accepted: Bool) {
        #expect((RegionReminderRules.textProblem(text) == nil) == accepted)
    }

    @Test("a one-shot reminder ends when it fires; a repeating one stays active", arguments: [true, false])
    func fired(oneShot: Bool) {
        let reminder = RegionReminder(reminderId: "rem-1", deviceId: "phone-1", cafeId: "caffe-macs", text: "x", oneShot: oneShot, state: .active, createdAt: t0, firedAt: nil)
        let after = RegionReminderRules.fired(reminder, at: .at(60))
        #expect(after.state == (oneShot ? .fired : .active))
        #expect(after.firedAt == .at(60))
    }
}
