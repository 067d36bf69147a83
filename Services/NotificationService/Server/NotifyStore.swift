import Foundation
import Messages
import NotifyCore
import SQLite

/// All of notification-service's SQL: its schema, and every read and write of device
/// registrations, notifications and the café names learned from orders (reminders and retention
/// are in extensions). Rows become records here and nowhere else. Writes
/// run inside the caller's transaction (`ServiceHost.write` or the follower's), except retention's
/// batches, which commit one by one.
final class NotifyStore {
    let db: Database

    init(db: Database) {
        self.db = db
    }

    /// Brings the file to the current schema.
    func migrate() throws {
        try db.migrate("notification-service", Self.migrations)
        try db.migrate("notification-service.retired", Self.retiredTables)
    }

    // MARK: Devices

    /// A device's registration, nil when it never registered.
    func registration(_ deviceId: String) throws -> DeviceRegistration? {
        guard let row = try db.query("SELECT * FROM devices WHERE device_id = ?", deviceId).first else { return nil }
        return DeviceRegistration(deviceId: deviceId, userId: row.optionalString("user_id"), channel: row.string("channel"), language: row.string("language"),
                                  locale: row.string("locale"), authorization: NotificationAuthorization(rawValue: row.string("authorization")) ?? .notDetermined,
                                  launchedAt: Timestamp(milliseconds: row.int64("launched_ms")), apns: Self.destination(row),
                                  apnsRetiredAt: row.optionalInt64("apns_retired_ms").map(Timestamp.init(milliseconds:)),
                                  webhook: row.optionalString("webhook_endpoint").map { WebhookDestination(endpoint: $0, recipient: row.optionalString("webhook_recipient")) })
    }

    /// The APNs destination a device row holds; nil for another channel.
    static func destination(_ row: Row) -> APNsDestination? {
        guard let token = row.optionalString("apns_token"), let topic = row.optionalString("apns_topic"),
              let environment = row.optionalString("apns_environment").flatMap(APNsEnvironment.init(rawValue:)) else { return nil }
        return APNsDestination(token: token, environment: environment, topic: topic)
    }

    /// Stores a registration, replacing the device's previous one (each registration is a launch).
    /// A new registration is a live token again: a retirement is cleared.
    func save(_ registration: DeviceRegistration) throws {
        try db.run("""
            INSERT INTO devices (device_id, user_id, channel, language, locale, authorization, launched_ms, apns_token, apns_environment, apns_topic, apns_retired_ms,
                webhook_endpoint, webhook_recipient)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)
            ON CONFLICT(device_id) DO UPDATE SET user_id = excluded.user_id, channel = excluded.channel, language = excluded.language,
                locale = excluded.locale, authorization = excluded.authorization, launched_ms = excluded.launched_ms, apns_token = excluded.apns_token,
                apns_environment = excluded.apns_environment, apns_topic = excluded.apns_topic, apns_retired_ms = NULL,
                webhook_endpoint = excluded.webhook_endpoint, webhook_recipient = excluded.webhook_recipient
            """, registration.deviceId, registration.userId, registration.channel, registration.language, registration.locale,
                   registration.authorization.rawValue, registration.launchedAt.milliseconds, registration.apns?.token,
                   registration.apns?.environment.rawValue, registration.apns?.topic, registration.webhook?.endpoint, registration.webhook?.recipient)
    }

    func isRegistered(_ deviceId: String) throws -> Bool {
        try db.query("SELECT 1 AS x FROM devices WHERE device_id = ?", deviceId).first != nil
    }

    /// Every device registered for the user.
    func devices(ofUser userId: String) throws -> [String] {
        try db.query("SELECT device_id FROM devices WHERE user_id = ?", userId).map { $0.string("device_id") }
    }

    // MARK: Notifications

    /// Whether the device already has a notification of `kind` under `onceKey` (a new one collapses into it).
    func hasNotification(deviceId: String, kind: NotificationKind, onceKey: String) throws -> Bool {
        try !db.query("SELECT 1 AS found FROM notifications WHERE device_id = ? AND kind = ? AND once_key = ?", deviceId, kind.rawValue, onceKey).isEmpty
    }

    /// Stores a notification whose JSON (`body`, as its event carried it) is what the inbox serves.
    /// The caller has checked with `hasNotification` in the same transaction.
    func insert(_ notification: DeviceNotification, body: Data, onceKey: String) throws {
        try db.run("""
            INSERT INTO notifications (notification_id, device_id, kind, collapse_id, once_key, body, delivered, reason, created_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, notification.notificationId, notification.deviceId, notification.kind.rawValue, notification.collapseId, onceKey,
                   String(decoding: body, as: UTF8.self), notification.undeliverableReason == nil, notification.undeliverableReason,
                   notification.createdAt.milliseconds)
    }

    /// Where a device's notification sits in its inbox; nil when the device has no such notification.
    func inboxPosition(of notificationId: String, deviceId: String) throws -> Int64? {
        try db.query("SELECT seq FROM notifications WHERE notification_id = ? AND device_id = ?", notificationId, deviceId).first?.int64("seq")
    }

    /// The device's delivered notifications after `position`, oldest first.
    func inbox(_ deviceId: String, after position: Int64, limit: Int) throws -> [DeviceNotification] {
        try db.query("SELECT body FROM notifications WHERE device_id = ? AND delivered = 1 AND seq > ? ORDER BY seq LIMIT ?", deviceId, position, limit)
            .map { try Wire.decodeStored(DeviceNotification.self, from: Data($0.string("body").utf8)) }
    }

    // MARK: Cafés

    /// Remembers a café's name as an order carried it, for reminder titles.
    func learnCafe(_ cafeId: String, name: String) throws {
        try db.run("INSERT INTO cafes (cafe_id, name) VALUES (?, ?) ON CONFLICT(cafe_id) DO UPDATE SET name = excluded.name", cafeId, name)
    }

    func cafeName(_ cafeId: String) throws -> String? {
        try db.query("SELECT name FROM cafes WHERE cafe_id = ?", cafeId).first?.string("name")
    }

    // MARK: Health

    /// Rows held per kind, for health; -1 where the file cannot be read.
    func healthCounts() -> [String: String] {
        func count(_ sql: String) -> String { "\((try? db.query(sql).first?.int("n")) ?? -1)" }
        return [
            "notifications.held": count("SELECT COUNT(*) AS n FROM notifications"),
            "notifications.delivered": count("SELECT COUNT(*) AS n FROM notifications WHERE delivered = 1"),
            "notifications.undeliverable": count("SELECT COUNT(*) AS n FROM notifications WHERE delivered = 0"),
            "reminders.pickupPending": count("SELECT COUNT(*) AS n FROM pickup_reminders WHERE state = 'pending'"),
            "reminders.regionActive": count("SELECT COUNT(*) AS n FROM region_reminders WHERE state = 'active'"),
        ]
    }
}
