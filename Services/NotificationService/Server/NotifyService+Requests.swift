import Foundation
import Messages
import NotifyCore
import Policy
import ServiceRuntime

/// The request ops: registration (each one a launch), the inbox, and region reminders. A refused
/// request changes nothing: the checks come before the write.
///
/// Who may: a phone only for the device (and user) its key belongs to: a body naming another is
/// refused, a left-out `userId` is taken from the key. An operator may read any device's inbox
/// and reminders; the op table keeps it from registering, setting or cancelling.
extension NotifyService {
    func routeRequests() {
        router.on(Op.deviceRegister, RegisterDevice.self) { [unowned self] body, caller in
            var request = body
            request.deviceId = try caller.actingDevice(required: body.deviceId)
            // A phone registering its device under another user would receive that user's notifications.
            request.userId = try caller.actingUser(body.userId)
            return try register(request)
        }
        // A left-out device is the phone's own: filled in here, so every handler below reads it from the body.
        router.on(Op.inboxList, InboxQuery.self) { [unowned self] body, caller in
            var query = body
            query.deviceId = try caller.actingDevice(required: body.deviceId)
            return try inbox(query)
        }
        router.on(Op.reminderSet, SetReminder.self) { [unowned self] body, caller in
            var request = body
            request.deviceId = try caller.actingDevice(required: body.deviceId)
            return try setReminder(request)
        }
        router.on(Op.reminderList, ReminderQuery.self) { [unowned self] body, caller in
            var query = body
            query.deviceId = try caller.actingDevice(required: body.deviceId)
            return try listReminders(query)
        }
        router.on(Op.reminderCancel, CancelReminder.self) { [unowned self] body, caller in
            var request = body
            request.deviceId = try caller.actingDevice(required: body.deviceId)
            return try cancelReminder(request, caller: caller)
        }
    }

    func register(_ request: RegisterDevice) throws -> Registration {
        try NotifyRequestRules.checkRegistration(request, catalog: catalog)
        let registration = try NotifyRequestRules.registration(request, now: now)
        try events.write {
            try store.save(registration)
            if let activity = request.liveActivity, let destination = registration.apns {
                try store.saveActivity(activity, deviceId: registration.deviceId, destination: destination)
            }
        }
        logger.info("device registered", ["device.id": registration.deviceId, "authorization": request.authorization.rawValue, "language": request.language])
        return Registration(deviceId: registration.deviceId, language: request.language, locale: request.locale, authorization: request.authorization,
                            grantExpiresAt: registration.grantExpiresAt, notificationLanguage: MessageCatalog.language(for: request.language),
                            launchedAt: registration.launchedAt)
    }

    func inbox(_ query: InboxQuery) throws -> InboxReply {
        let deviceId = try NotifyRequestRules.deviceId(query.deviceId)
        try requireDevice(deviceId)
        let limit = try NotifyRequestRules.inboxLimit(query.limit)
        var after: Int64 = 0
        if let since = query.sinceId {
            guard let position = try store.inboxPosition(of: since, deviceId: deviceId) else {
                throw NotifyRequestRules.unknownSince(since, deviceId: deviceId, retentionDays: retention.days)
            }
            after = position
        }
        return InboxReply(deviceId: deviceId, notifications: try store.inbox(deviceId, after: after, limit: limit))
    }

    func setReminder(_ request: SetReminder) throws -> RegionReminder {
        try NotifyRequestRules.checkReminder(request, catalog: catalog)
        let deviceId = try NotifyRequestRules.deviceId(request.deviceId)
        try requireDevice(deviceId)
        let reminder = RegionReminder(reminderId: "rem_" + UUID().uuidString.lowercased(), deviceId: deviceId, cafeId: request.cafeId,
                                      text: request.text, oneShot: request.oneShot ?? true, state: .active, createdAt: now, firedAt: nil)
        try events.write {
            try RegionReminderRules.checkLimit(active: try store.activeReminderCount(deviceId: deviceId), deviceId: deviceId)
            try store.insert(reminder)
        }
        logger.info("region reminder set", ["device.id": reminder.deviceId, "cafe.id": reminder.cafeId, "reminder.id": reminder.reminderId])
        return reminder
    }

    func listReminders(_ query: ReminderQuery) throws -> ReminderList {
        let deviceId = try NotifyRequestRules.deviceId(query.deviceId)
        try requireDevice(deviceId)
        return ReminderList(deviceId: deviceId, reminders: try store.reminders(deviceId: deviceId, includeDone: query.includeDone ?? false))
    }

    func cancelReminder(_ request: CancelReminder, caller: Caller = .developer) throws -> RegionReminder {
        let deviceId = try NotifyRequestRules.deviceId(request.deviceId)
        return try events.write {
            guard let reminder = try store.reminder(request.reminderId, deviceId: deviceId) else {
                throw ServiceError(.unknownReminder, "device \(deviceId) has no reminder \(request.reminderId.prefix(60))")
            }
            // The lookup is by device already; the stored owner is checked too, so a phone can
            // never end a reminder that is not its own, whatever the query matched.
            try caller.requireOwner(device: reminder.deviceId, "cancel reminder \(Quoting.quoted(request.reminderId)) of another device")
            // Cancelling one that already ended is answered with it as it is: the call is idempotent.
            guard let cancelled = RegionReminderRules.cancelled(reminder) else { return reminder }
            try store.update(cancelled, at: now)
            return cancelled
        }
    }

    private func requireDevice(_ deviceId: String) throws {
        guard try store.isRegistered(deviceId) else { throw NotifyRequestRules.unknownDevice(deviceId) }
    }
}
