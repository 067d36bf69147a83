import Foundation
import Messages
@testable import NotifyServer
import Policy
import Testing
import TestSupport

extension NotifyHarness {
    /// A request through the router as `caller`, encoded and decoded as the wire carries it.
    func call<Body: Codable & Sendable, Result: Codable & Sendable>(_ op: String, _ body: Body, as result: Result.Type, caller: Caller) throws -> Result {
        try Wire.decodeReply(host.requests.router.handle(Wire.encode(Request(op: op, body: body)), caller: caller), body: Result.self).get()
    }

    /// What notification-service keeps: registrations (with their user), reminders and
    /// notifications. A refused request leaves it as it was.
    func snapshot() throws -> [String] {
        try host.db.query("SELECT device_id, user_id, launched_ms FROM devices ORDER BY device_id").map {
            "device \($0.string("device_id")) user=\($0.optionalString("user_id") ?? "-") launched=\($0.int64("launched_ms"))"
        } + host.db.query("SELECT reminder_id, device_id, state FROM region_reminders ORDER BY rowid").map {
            "reminder \($0.string("reminder_id")) \($0.string("device_id")) \($0.string("state"))"
        } + ["notifications \(try count("SELECT COUNT(*) AS n FROM notifications"))"]
    }

    func registration(_ deviceId: String, userId: String? = nil) -> RegisterDevice {
        RegisterDevice(deviceId: deviceId, userId: userId, channel: "bus", language: "en", locale: "en_US", authorization: .authorized)
    }
}

/// Who may use notification-service's requests, by the caller its connection proved: a phone
/// only for its own device and user; an operator reads any inbox and reminders. Every refusal
/// changes nothing.
@Suite(.serialized)
struct NotifyAccessTests {
    @Test("device.register: a phone registers its own device as its own user; never under someone else's user, nor another device")
    func registerAsItself() throws {
        let h = try NotifyHarness()
        let ana = Callers.phone("phone-ana", user: "ana")
        // The user left out is the key's.
        _ = try h.call(Op.deviceRegister, h.registration("phone-ana"), as: Registration.self, caller: ana)
        #expect(try h.service.store.registration("phone-ana")?.userId == "ana")
        h.clock.advance(seconds: 60)
        _ = try h.call(Op.deviceRegister, h.registration("phone-ana", userId: "ana"), as: Registration.self, caller: ana)
        let before = try h.snapshot()
        #expect(before.first?.hasPrefix("device phone-ana user=ana") == true)

        // Ana's phone registering itself under Bo, to receive Bo's notifications.
        let asBo = try requireValue(serviceError { try h.call(Op.deviceRegister, h.registration("phone-ana", userId: "bo"), as: Registration.self, caller: ana) })
        #expect(asBo.code == "auth.forbidden" && asBo.message.contains("\"bo\""))
        // Or registering Bo's phone.
        #expect(errorCode { try h.call(Op.deviceRegister, h.registration("phone-bo"), as: Registration.self, caller: ana) } == "auth.forbidden")
        for caller in [Callers.operator, Callers.kiosk, Callers.gateway, Callers.service("order-service")] {
            #expect(errorCode { try h.call(Op.deviceRegister, h.registration("phone-ana", userId: "ana"), as: Registration.self, caller: caller) } == "auth.forbidden",
                    "\(caller.name)")
        }
        #expect(try h.snapshot() == before)
        #expect(try h.service.store.devices(ofUser: "bo").isEmpty, "Bo's notifications reach none of Ana's devices")
    }

    @Test("inbox.list: a phone reads its own inbox; the operator any; another phone not even whether a device exists")
    func inboxIsTheDevices() throws {
        let h = try NotifyHarness()
        try h.register("phone-1")
        try h.register("phone-2")
        let mine = try h.readyNotification("ord-1", device: "phone-1")
        let query = InboxQuery(deviceId: "phone-1")
        #expect(try h.call(Op.inboxList, query, as: InboxReply.self, caller: Callers.phone("phone-1")).notifications.map(\.notificationId) == [mine])
        #expect(try h.call(Op.inboxList, query, as: InboxReply.self, caller: Callers.operator).notifications.map(\.notificationId) == [mine])
        let before = try h.snapshot()
        for caller in [Callers.phone("phone-2"), Callers.kiosk, Callers.kitchen, Callers.gateway, Callers.service("order-service")] {
            let refusal = try requireValue(serviceError { try h.call(Op.inboxList, query, as: InboxReply.self, caller: caller) })
            #expect(refusal.code == "auth.forbidden" && !refusal.message.contains(mine), "\(caller.name)")
        }
        // A device that never registered: refused the same way, not "unknown device".
        #expect(errorCode { try h.call(Op.inboxList, InboxQuery(deviceId: "phone-9"), as: InboxReply.self, caller: Callers.phone("phone-2")) } == "auth.forbidden")
        #expect(try h.snapshot() == before)
    }

    @Test("reminder.set and reminder.list: a phone for its own device; the operator lists any device's, sets none")
    func remindersAreTheDevices() throws {
        let h = try NotifyHarness()
        try h.register("phone-1")
        let set = SetReminder(deviceId: "phone-1", cafeId: "caffe-macs", text: "get a coffee")
        let reminder = try h.call(Op.reminderSet, set, as: RegionReminder.self, caller: Callers.phone("phone-1"))
        let list = ReminderQuery(deviceId: "phone-1")
        #expect(try h.call(Op.reminderList, list, as: ReminderList.self, caller: Callers.phone("phone-1")).reminders == [reminder])
        #expect(try h.call(Op.reminderList, list, as: ReminderList.self, caller: Callers.operator).reminders == [reminder])
        let before = try h.snapshot()
        for caller in [Callers.phone("phone-2"), Callers.operator, Callers.kiosk, Callers.service("notification-service")] {
            #expect(errorCode { try h.call(Op.reminderSet, set, as: RegionReminder.self, caller: caller) } == "auth.forbidden", "set as \(caller.name)")
        }
        for caller in [Callers.phone("phone-2"), Callers.kiosk, Callers.gateway, Callers.service("order-service")] {
            #expect(errorCode { try h.call(Op.reminderList, list, as: ReminderList.self, caller: caller) } == "auth.forbidden", "list as \(caller.name)")
        }
        #expect(try h.snapshot() == before)
    }

    @Test("reminder.cancel: a phone ends only its own device's reminders")
    func cancelOnlyYourOwn() throws {
        let h = try NotifyHarness()
        try h.register("phone-1")
        try h.register("phone-2")
        let victims = try h.service.setReminder(SetReminder(deviceId: "phone-1", cafeId: "caffe-macs", text: "mine"))
        let own = try h.service.setReminder(SetReminder(deviceId: "phone-2", cafeId: "caffe-macs", text: "theirs"))
        let before = try h.snapshot()
        let mallory = Callers.phone("phone-2")
        // Naming the victim's device, or its own device with the victim's reminder id.
        #expect(errorCode { try h.call(Op.reminderCancel, CancelReminder(deviceId: "phone-1", reminderId: victims.reminderId), as: RegionReminder.self, caller: mallory) }
                == "auth.forbidden")
        #expect(errorCode { try h.call(Op.reminderCancel, CancelReminder(deviceId: "phone-2", reminderId: victims.reminderId), as: RegionReminder.self, caller: mallory) }
                == "notify.unknownReminder")
        // The stored reminder's device is checked too, past the router's check.
        #expect(errorCode { try h.service.cancelReminder(CancelReminder(deviceId: "phone-1", reminderId: victims.reminderId), caller: mallory) } == "auth.forbidden")
        for caller in [Callers.operator, Callers.kiosk, Callers.service("order-service")] {
            #expect(errorCode { try h.call(Op.reminderCancel, CancelReminder(deviceId: "phone-1", reminderId: victims.reminderId), as: RegionReminder.self, caller: caller) }
                    == "auth.forbidden", "\(caller.name)")
        }
        #expect(try h.snapshot() == before)
        let cancelled = try h.call(Op.reminderCancel, CancelReminder(deviceId: "phone-2", reminderId: own.reminderId), as: RegionReminder.self, caller: mallory)
        #expect(cancelled.state == .cancelled)
        #expect(try h.service.store.reminder(victims.reminderId, deviceId: "phone-1")?.state == .active)
    }
}
