import Campus
import Foundation
import Messages
import NotifyCore
import SQLite
import ServiceRuntime

/// The request ops: registration (each one a launch), the inbox, and region reminders. A refused
/// request changes nothing: the checks come before the write.
extension NotifyService {
    func register(_ request: RegisterDevice) throws -> Registration {
        try TextRules.requireToken(request.deviceId, field: "deviceId")
        if let userId = request.userId { try TextRules.requireToken(userId, field: "userId") }
        guard request.channel == "bus" else {
            throw ServiceError(.notificationChannelUnsupported, "channel \"\(request.channel.prefix(20))\" is not supported (supported: bus)")
        }
        guard isValidLocaleIdentifier(request.language) else {
            throw ServiceError(.invalidNotificationLanguage, "language \"\(request.language.prefix(20))\" is not a language tag like en or de-CH")
        }
        guard isValidLocaleIdentifier(request.locale) else {
            throw ServiceError(.invalidNotificationLanguage, "locale \"\(request.locale.prefix(20))\" is not a locale identifier like en_US")
        }
        let launched = now
        try host.write {
            try db.run("""
                INSERT INTO devices (device_id, user_id, channel, language, locale, authorization, launched_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(device_id) DO UPDATE SET user_id = excluded.user_id, channel = excluded.channel, language = excluded.language,
                    locale = excluded.locale, authorization = excluded.authorization, launched_ms = excluded.launched_ms
                """, request.deviceId, request.userId, request.channel, request.language, request.locale, request.authorization.rawValue, launched.milliseconds)
        }
        let registration = DeviceRegistration(deviceId: request.deviceId, userId: request.userId, channel: request.channel, language: request.language,
                                              locale: request.locale, authorization: request.authorization, launchedAt: launched)
        host.logger.info("device registered", ["device.id": request.deviceId, "authorization": request.authorization.rawValue, "language": request.language])
        return Registration(deviceId: request.deviceId, language: request.language, locale: request.locale, authorization: request.authorization,
                            grantExpiresAt: registration.grantExpiresAt, notificationLanguage: MessageCatalog.language(for: request.language),
                            launchedAt: launched)
    }

    func inbox(_ query: InboxQuery) throws -> InboxReply {
        try TextRules.requireToken(query.deviceId, field: "deviceId")
        try requireDevice(query.deviceId)
        if let limit = query.limit, !(1...500).contains(limit) {
            throw ServiceError(.invalidField, "limit must be 1–500, not \(limit)")
        }
        var after: Int64 = 0
        if let since = query.sinceId {
            guard let row = try db.query("SELECT seq FROM notifications WHERE notification_id = ? AND device_id = ?", since, query.deviceId).first else {
                // It may have been one that retention deleted: say so, so the client reads from the start.
                throw ServiceError(.unknownNotification,
                                   "sinceId \(since.prefix(60)) is not a notification of device \(query.deviceId) (notifications are kept \(retention.days) days)")
            }
            after = row.int64("seq")
        }
        let rows = try db.query("SELECT body FROM notifications WHERE device_id = ? AND delivered = 1 AND seq > ? ORDER BY seq LIMIT ?",
                                query.deviceId, after, query.limit ?? 50)
        return InboxReply(deviceId: query.deviceId, notifications: try rows.map { try JSONDecoder().decode(DeviceNotification.self, from: Data($0.string("body").utf8)) })
    }

    func setReminder(_ request: SetReminder) throws -> RegionReminder {
        try TextRules.requireToken(request.deviceId, field: "deviceId")
        guard TextRules.isToken(request.cafeId, max: 64) else {
            throw ServiceError(.invalidReminder, "cafeId must be 1–64 characters of A–Z, a–z, 0–9, - and _ (a café id such as caffe-macs)")
        }
        if let problem = RegionReminderRules.textProblem(request.text) { throw ServiceError(.invalidReminder, problem) }
        if let catalog, catalog.cafe(request.cafeId) == nil {
            throw ServiceError(.unknownReminderCafe, "no café \(request.cafeId) on the campus; cafés: \(catalog.cafes.map(\.id).joined(separator: ", "))")
        }
        try requireDevice(request.deviceId)
        let reminder = RegionReminder(reminderId: "rem_" + UUID().uuidString.lowercased(), deviceId: request.deviceId, cafeId: request.cafeId,
                                      text: request.text, oneShot: request.oneShot ?? true, state: .active, createdAt: now, firedAt: nil)
        try host.write {
            let active = try db.query("SELECT COUNT(*) AS n FROM region_reminders WHERE device_id = ? AND state = 'active'", request.deviceId).first?.int("n") ?? 0
            guard active < RegionReminderRules.maxActivePerDevice else {
                throw ServiceError(.reminderLimitExceeded, "device \(request.deviceId) already has \(active) active reminders (at most \(RegionReminderRules.maxActivePerDevice)); cancel one first")
            }
            try db.run("INSERT INTO region_reminders (reminder_id, device_id, cafe_id, text, one_shot, state, created_ms) VALUES (?, ?, ?, ?, ?, 'active', ?)",
                       reminder.reminderId, reminder.deviceId, reminder.cafeId, reminder.text, reminder.oneShot, reminder.createdAt.milliseconds)
        }
        host.logger.info("region reminder set", ["device.id": reminder.deviceId, "cafe.id": reminder.cafeId, "reminder.id": reminder.reminderId])
        return reminder
    }

    func listReminders(_ query: ReminderQuery) throws -> ReminderList {
        try TextRules.requireToken(query.deviceId, field: "deviceId")
        try requireDevice(query.deviceId)
        let rows = try db.query("SELECT * FROM region_reminders WHERE device_id = ? AND (? OR state = 'active') ORDER BY created_ms, rowid",
                                query.deviceId, query.includeDone ?? false)
        return ReminderList(deviceId: query.deviceId, reminders: rows.map(Self.reminder))
    }

    func cancelReminder(_ request: CancelReminder) throws -> RegionReminder {
        try TextRules.requireToken(request.deviceId, field: "deviceId")
        return try host.write {
            guard let row = try db.query("SELECT * FROM region_reminders WHERE reminder_id = ? AND device_id = ?", request.reminderId, request.deviceId).first else {
                throw ServiceError(.unknownReminder, "device \(request.deviceId) has no reminder \(request.reminderId.prefix(60))")
            }
            var reminder = Self.reminder(row)
            // Cancelling one that already ended is answered with it as it is: the call is idempotent.
            if reminder.state == .active {
                try db.run("UPDATE region_reminders SET state = 'cancelled', ended_ms = ? WHERE reminder_id = ?", now.milliseconds, request.reminderId)
                reminder.state = .cancelled
            }
            return reminder
        }
    }

    static func reminder(_ row: Row) -> RegionReminder {
        RegionReminder(reminderId: row.string("reminder_id"), deviceId: row.string("device_id"), cafeId: row.string("cafe_id"), text: row.string("text"),
                       oneShot: row.bool("one_shot"), state: ReminderState(rawValue: row.string("state")) ?? .cancelled,
                       createdAt: Timestamp(milliseconds: row.int64("created_ms")), firedAt: row.optionalInt64("fired_ms").map(Timestamp.init(milliseconds:)))
    }

    private func requireDevice(_ deviceId: String) throws {
        guard try db.query("SELECT 1 AS x FROM devices WHERE device_id = ?", deviceId).first != nil else {
            throw ServiceError(.unknownNotificationDevice, "device \(deviceId) never registered for notifications (device.register)")
        }
    }
}
