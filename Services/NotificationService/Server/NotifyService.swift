import Campus
import Foundation
import Messages
import NotifyCore
import SQLite
import ServiceRuntime

/// The shell of notification-service: registrations, inboxes and reminders in SQLite. Each
/// notification is written with its delivery (or undeliverable) event in one transaction through
/// the outbox; the event id of what caused it is remembered in the same transaction, so a
/// replayed event never notifies twice, and one notification per (device, kind, order).
public final class NotifyService {
    static let migrations = [
        Migration(1, """
            CREATE TABLE devices (
                device_id TEXT PRIMARY KEY,
                user_id TEXT,
                channel TEXT NOT NULL,
                language TEXT NOT NULL,
                locale TEXT NOT NULL,
                authorization TEXT NOT NULL,
                launched_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX devices_user ON devices (user_id);
            CREATE TABLE notifications (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                notification_id TEXT NOT NULL UNIQUE,
                device_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                collapse_id TEXT NOT NULL,
                body TEXT NOT NULL,
                delivered INTEGER NOT NULL,
                reason TEXT,
                UNIQUE (device_id, kind, collapse_id)
            );
            CREATE TABLE processed_events (event_id TEXT PRIMARY KEY, at_ms INTEGER NOT NULL) WITHOUT ROWID;
            """),
        // A repeating region reminder notifies once per arrival under one collapse id, so "once"
        // gets its own key; pickup and region reminders get their tables; café names are learned
        // from order snapshots for reminder titles.
        Migration(2, """
            CREATE TABLE notifications_v2 (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                notification_id TEXT NOT NULL UNIQUE,
                device_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                collapse_id TEXT NOT NULL,
                once_key TEXT NOT NULL,
                body TEXT NOT NULL,
                delivered INTEGER NOT NULL,
                reason TEXT,
                UNIQUE (device_id, kind, once_key)
            );
            INSERT INTO notifications_v2 (seq, notification_id, device_id, kind, collapse_id, once_key, body, delivered, reason)
                SELECT seq, notification_id, device_id, kind, collapse_id, collapse_id, body, delivered, reason FROM notifications;
            DROP TABLE notifications;
            ALTER TABLE notifications_v2 RENAME TO notifications;
            CREATE INDEX notifications_inbox ON notifications (device_id, delivered, seq);
            CREATE TABLE pickup_reminders (
                order_id TEXT PRIMARY KEY,
                due_ms INTEGER NOT NULL,
                snapshot TEXT NOT NULL,
                state TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX pickup_reminders_due ON pickup_reminders (state, due_ms);
            CREATE TABLE region_reminders (
                reminder_id TEXT NOT NULL UNIQUE,
                device_id TEXT NOT NULL,
                cafe_id TEXT NOT NULL,
                text TEXT NOT NULL,
                one_shot INTEGER NOT NULL,
                state TEXT NOT NULL,
                created_ms INTEGER NOT NULL,
                fired_ms INTEGER
            );
            CREATE INDEX region_reminders_arrival ON region_reminders (device_id, cafe_id, state);
            CREATE TABLE cafes (cafe_id TEXT PRIMARY KEY, name TEXT NOT NULL) WITHOUT ROWID;
            """),
        // Retention needs an age for every row: when a notification was created, when a reminder
        // ended. Existing notifications take it from their stored createdAt (a body that cannot be
        // read gets 0 and goes at the first prune: the inbox cannot decode it anyway); reminders
        // that already ended take the closest time they have (a pickup reminder's due time, a
        // region reminder's firing or, cancelled, its creation).
        Migration(3, """
            ALTER TABLE notifications ADD COLUMN created_ms INTEGER NOT NULL DEFAULT 0;
            UPDATE notifications SET created_ms = COALESCE(CASE WHEN json_valid(body) THEN
                CAST(round((julianday(json_extract(body, '$.createdAt')) - 2440587.5) * 86400000) AS INTEGER) END, 0);
            CREATE INDEX notifications_created ON notifications (created_ms);
            ALTER TABLE pickup_reminders ADD COLUMN ended_ms INTEGER;
            UPDATE pickup_reminders SET ended_ms = due_ms WHERE state <> 'pending';
            CREATE INDEX pickup_reminders_ended ON pickup_reminders (ended_ms);
            ALTER TABLE region_reminders ADD COLUMN ended_ms INTEGER;
            UPDATE region_reminders SET ended_ms = COALESCE(fired_ms, created_ms) WHERE state <> 'active';
            CREATE INDEX region_reminders_ended ON region_reminders (ended_ms);
            """),
    ]

    let host: ServiceHost
    /// The campus catalog when configured: café names and the ids reminders may name.
    let catalog: CampusCatalog?
    let composer = NotificationComposer()
    let schedule: PickupReminderSchedule
    var db: Database { host.db }
    var now: Timestamp { host.clock.now() }
    /// How long what is over (notifications, ended reminders) is kept.
    let retention: NotificationRetention
    /// Events skipped because their id was already applied (since start), for health.
    var deduplicated = 0
    /// Rows deleted by retention since start, for health.
    var pruned = 0

    /// The service on `host` (its database, sockets and clock); `start()` migrates and registers it.
    public init(host: ServiceHost, catalog: CampusCatalog?, schedule: PickupReminderSchedule, tickSeconds: Double, retention: NotificationRetention) {
        self.host = host
        self.catalog = catalog
        self.schedule = schedule
        self.tickSeconds = tickSeconds
        self.retention = retention
    }

    private let tickSeconds: Double

    /// Migrates the schema and registers the subscriptions, ops, timers and health details.
    public func start() throws {
        try db.migrate("notification-service", Self.migrations)
        // A service that was down for a while catches up before it takes new work.
        try pruneExpired()
        try host.subscribe(["order.", "region."], durableStreams: ["order", "region"]) { [unowned self] _, envelope in try self.consume(envelope) }
        host.router.on(Op.deviceRegister, RegisterDevice.self) { [unowned self] in try self.register($0) }
        host.router.on(Op.inboxList, InboxQuery.self) { [unowned self] in try self.inbox($0) }
        host.router.on(Op.reminderSet, SetReminder.self) { [unowned self] in try self.setReminder($0) }
        host.router.on(Op.reminderList, ReminderQuery.self) { [unowned self] in try self.listReminders($0) }
        host.router.on(Op.reminderCancel, CancelReminder.self) { [unowned self] in try self.cancelReminder($0) }
        // Pickup reminders live in SQLite, so a restart neither loses nor repeats one.
        host.reactor.every(tickSeconds, name: "reminders.pickup") { [unowned self] in try self.sendDuePickupReminders() }
        host.reactor.every(3600, name: "processed.prune") { [unowned self] in
            // Replays reach back as far as publishers keep their outbox (7 days); ids older than that cannot come back.
            try self.db.run("DELETE FROM processed_events WHERE at_ms < ?", self.now.adding(seconds: -8 * 24 * 3600).milliseconds)
        }
        host.reactor.every(3600, name: "retention.prune") { [unowned self] in try self.pruneExpired() }
        host.addHealthDetails { [unowned self] in
            func count(_ sql: String) -> String { "\((try? db.query(sql).first?.int("n")) ?? -1)" }
            return [
                "notifications.held": count("SELECT COUNT(*) AS n FROM notifications"),
                "notifications.delivered": count("SELECT COUNT(*) AS n FROM notifications WHERE delivered = 1"),
                "notifications.undeliverable": count("SELECT COUNT(*) AS n FROM notifications WHERE delivered = 0"),
                "reminders.pickupPending": count("SELECT COUNT(*) AS n FROM pickup_reminders WHERE state = 'pending'"),
                "reminders.regionActive": count("SELECT COUNT(*) AS n FROM region_reminders WHERE state = 'active'"),
                "events.deduplicated": "\(deduplicated)",
                "retention.days": "\(retention.days)",
                "retention.pruned": "\(pruned)",
            ]
        }
    }

    /// A café's name: from the catalog, else as the last order taught it, else its id.
    func cafeName(_ cafeId: String) throws -> String {
        if let cafe = catalog?.cafe(cafeId) { return cafe.name }
        return try db.query("SELECT name FROM cafes WHERE cafe_id = ?", cafeId).first?.string("name") ?? cafeId
    }

    /// A device's registration, nil when it never registered.
    func registration(_ deviceId: String) throws -> DeviceRegistration? {
        guard let row = try db.query("SELECT * FROM devices WHERE device_id = ?", deviceId).first else { return nil }
        return DeviceRegistration(deviceId: deviceId, userId: row.optionalString("user_id"), channel: row.string("channel"), language: row.string("language"),
                                  locale: row.string("locale"), authorization: NotificationAuthorization(rawValue: row.string("authorization")) ?? .notDetermined,
                                  launchedAt: Timestamp(milliseconds: row.int64("launched_ms")))
    }

    /// Writes one device's notification and its delivery or undeliverable event, inside the
    /// caller's transaction. `onceKey` names what may notify this device only once per kind (the
    /// order id; a one-shot reminder's id); nil when it was already notified (collapsed).
    @discardableResult
    func notify(_ subject: NotificationSubject, deviceId: String, onceKey: String) throws -> DeviceNotification? {
        let notification = composer.compose(subject, deviceId: deviceId, registration: try registration(deviceId),
                                             notificationId: "ntf_" + UUID().uuidString.lowercased(), now: now)
        try db.run("""
            INSERT INTO notifications (notification_id, device_id, kind, collapse_id, once_key, body, delivered, reason, created_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """, notification.notificationId, deviceId, notification.kind.rawValue, notification.collapseId, onceKey,
                   String(decoding: Wire.encode(notification), as: UTF8.self), notification.undeliverableReason == nil, notification.undeliverableReason,
                   notification.createdAt.milliseconds)
        guard db.changes == 1 else { return nil }
        if let reason = notification.undeliverableReason {
            host.logger.info("notification not delivered", ["device.id": deviceId, "notification.kind": notification.kind.rawValue,
                                                            "notification.collapseId": notification.collapseId, "reason": reason])
            try host.emit(.notifyUndeliverable, topic: Topic.notifyUndeliverable, stream: "notify", .notification(notification))
        } else {
            try host.emit(.notifyDelivery, topic: Topic.notifyDelivery(device: deviceId), stream: "notify", .notification(notification))
        }
        return notification
    }
}
