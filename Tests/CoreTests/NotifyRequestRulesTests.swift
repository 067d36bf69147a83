import Campus
import Messages
import NotifyCore
import Testing

@Suite("Notifications: request rules")
struct NotifyRequestRulesTests {
    static func register(_ deviceId: String = "phone-1", userId: String? = "alice", channel: String = "bus", language: String = "de-CH",
                         locale: String = "de_CH") -> RegisterDevice {
        RegisterDevice(deviceId: deviceId, userId: userId, channel: channel, language: language, locale: locale, authorization: .ephemeral)
    }

    @Test("a registration names its ids, a supported channel, a language tag and a locale", arguments: [
        (register(), nil as String?),
        (register(userId: nil), nil),
        (register("phone 1"), "request.invalidField"),
        (register(userId: "al ice"), "request.invalidField"),
        (register(channel: "sms"), "notify.channelUnsupported"),
        (register(channel: "apns"), "request.invalidField"),  // without its destination
        (register(language: "not a tag"), "notify.invalidLanguage"),
        (register(locale: "not a locale"), "notify.invalidLanguage"),
        (register("phone 1", channel: "apns"), "request.invalidField"),
    ])
    func registration(request: RegisterDevice, code: String?) {
        #expect(errorCode { () throws(ServiceError) in try NotifyRequestRules.checkRegistration(request) } == code)
    }

    @Test("a registration is a launch: an App Clip's grant runs 8 hours from it")
    func launch() throws {
        let registration = try NotifyRequestRules.registration(Self.register(), now: t0)
        #expect(registration.launchedAt == t0 && registration.grantExpiresAt == .at(8 * 3600))
        #expect(registration.deviceId == "phone-1" && registration.userId == "alice" && registration.language == "de-CH")
    }

    @Test("inbox page size", arguments: [(nil as Int?, 50 as Int?), (1, 1), (500, 500), (0, nil), (501, nil)])
    func inboxLimit(requested: Int?, limit: Int?) {
        #expect((try? NotifyRequestRules.inboxLimit(requested)) == limit)
        if limit == nil { #expect(errorCode { () throws(ServiceError) in try NotifyRequestRules.inboxLimit(requested) } == "request.invalidField") }
    }

    @Test("an unknown sinceId says how long notifications are kept")
    func unknownSince() {
        let error = NotifyRequestRules.unknownSince("ntf-gone", deviceId: "phone-1", retentionDays: 30)
        #expect(error.code == "notify.unknownNotification" && error.message.contains("kept 30 days"))
    }

    @Test("a reminder names a device, a café the campus has, and words to show", arguments: [
        (SetReminder(deviceId: "phone-1", cafeId: "caffe-macs", text: "coffee"), true, nil as String?),
        (SetReminder(deviceId: "phone-1", cafeId: "atlantis", text: "coffee"), true, "notify.unknownCafe"),
        (SetReminder(deviceId: "phone-1", cafeId: "atlantis", text: "coffee"), false, nil),
        (SetReminder(deviceId: "phone-1", cafeId: "caffe.macs", text: "coffee"), false, "notify.invalidReminder"),
        (SetReminder(deviceId: "phone-1", cafeId: "caffe-macs", text: "  "), true, "notify.invalidReminder"),
        (SetReminder(deviceId: "phone 1", cafeId: "caffe-macs", text: "coffee"), true, "request.invalidField"),
    ])
    func reminder(request: SetReminder, withCatalog: Bool, code: String?) throws {
        let catalog = withCatalog ? try DemoCampus.load() : nil
        #expect(errorCode { () throws(ServiceError) in try NotifyRequestRules.checkReminder(request, catalog: catalog) } == code)
    }

    @Test("at most 20 active reminders per device")
    func limit() {
        #expect(errorCode { () throws(ServiceError) in try RegionReminderRules.checkLimit(active: 19, deviceId: "phone-1") } == nil)
        #expect(errorCode { () throws(ServiceError) in try RegionReminderRules.checkLimit(active: 20, deviceId: "phone-1") } == "notify.reminderLimitExceeded")
    }

    static func reminder(oneShot: Bool, state: ReminderState = .active) -> RegionReminder {
        RegionReminder(reminderId: "rem-1", deviceId: "phone-1", cafeId: "caffe-macs", text: "x", oneShot: oneShot, state: state, createdAt: t0, firedAt: nil)
    }

    @Test("a one-shot reminder notifies once; a repeating one once per arrival")
    func onceKey() {
        #expect(RegionReminderRules.onceKey(Self.reminder(oneShot: true), eventId: "evt-9") == "rem-1")
        #expect(RegionReminderRules.onceKey(Self.reminder(oneShot: false), eventId: "evt-9") == "rem-1@evt-9")
    }

    @Test("cancelling an active reminder cancels it; one that ended is left as it is", arguments: ReminderState.allCases)
    func cancel(state: ReminderState) {
        let cancelled = RegionReminderRules.cancelled(Self.reminder(oneShot: true, state: state))
        #expect(cancelled?.state == (state == .active ? .cancelled : nil))
    }
}
