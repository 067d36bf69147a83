import Campus
import Foundation
import Messages
import NotifyCore
import SQLite
import ServiceRuntime

/// The shell of notification-service: registrations and inboxes in SQLite; each notification
/// written with its delivery event in one transaction; event ids remembered so a replayed event
/// never notifies twice, and one notification per (device, kind, order).
final class NotifyService {
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
    ]

    private let host: ServiceHost
    private let times = PickupTimeFormatter()
    private var db: Database { host.db }

    init(host: ServiceHost) {
        self.host = host
    }

    func start() throws {
        try db.migrate("notification-service", Self.migrations)
        try host.subscribe(["order."], durableStreams: ["order"]) { [unowned self] _, envelope in try self.consume(envelope) }
        host.router.on(Op.deviceRegister, RegisterDevice.self) { [unowned self] in try self.register($0) }
        host.router.on(Op.inboxList, InboxQuery.self) { [unowned self] in try self.inbox($0) }
        host.addHealthDetails { [unowned self] in
            let sent = (try? db.query("SELECT COUNT(*) AS n FROM notifications WHERE delivered = 1").first?.int("n")) ?? -1
            let refused = (try? db.query("SELECT COUNT(*) AS n FROM notifications WHERE delivered = 0").first?.int("n")) ?? -1
            return ["notifications.delivered": "\(sent)", "notifications.undeliverable": "\(refused)"]
        }
    }

    private func register(_ request: RegisterDevice) throws -> Registration {
        for (field, value) in [("deviceId", request.deviceId), ("userId", request.userId ?? "x")] {
            guard (1...64).contains(value.utf8.count), value.utf8.allSatisfy({ ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 95 }) else {
                throw ServiceError(.invalidField, "\(field) must be 1–64 characters of A–Z, a–z, 0–9, - and _")
            }
        }
        guard request.channel == "bus" else { throw ServiceError(.invalidField, "channel \"\(request.channel.prefix(20))\" is not supported (supported: bus)") }
        guard isValidLocaleIdentifier(request.language) else { throw ServiceError(.invalidField, "language \"\(request.language.prefix(20))\" is not a language tag like en or de-CH") }
        guard isValidLocaleIdentifier(request.locale) else { throw ServiceError(.invalidField, "locale \"\(request.locale.prefix(20))\" is not a locale identifier like en_US") }
        let now = host.clock.now()
        try host.write {
            try db.run("""
                INSERT INTO devices (device_id, user_id, channel, language, locale, authorization, launched_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(device_id) DO UPDATE SET user_id = excluded.user_id, channel = excluded.channel, language = excluded.language,
                    locale = excluded.locale, authorization = excluded.authorization, launched_ms = excluded.launched_ms
                """, request.deviceId, request.userId, request.channel, request.language, request.locale, request.authorization.rawValue, now.milliseconds)
        }
        let registration = DeviceRegistration(deviceId: request.deviceId, userId: request.userId, channel: request.channel, language: request.language,
                                              locale: request.locale, authorization: request.authorization, launchedAt: now)
        return Registration(deviceId: request.deviceId, language: request.language, locale: request.locale,
                            authorization: request.authorization, grantExpiresAt: registration.grantExpiresAt)
    }

    private func inbox(_ query: InboxQuery) throws -> InboxReply {
        let limit = min(max(query.limit ?? 50, 1), 500)
        var after: Int64 = 0
        if let since = query.sinceId {
            guard let row = try db.query("SELECT seq FROM notifications WHERE notification_id = ? AND device_id = ?", since, query.deviceId).first else {
                throw ServiceError(.invalidField, "sinceId \(since.prefix(60)) is not a notification of device \(query.deviceId.prefix(64))")
            }
            after = row.int64("seq")
        }
        let rows = try db.query("SELECT body FROM notifications WHERE device_id = ? AND delivered = 1 AND seq > ? ORDER BY seq LIMIT ?", query.deviceId, after, limit)
        return InboxReply(deviceId: query.deviceId, notifications: try rows.map { try JSONDecoder().decode(DeviceNotification.self, from: Data($0.string("body").utf8)) })
    }

    private func registration(_ deviceId: String) throws -> DeviceRegistration? {
        guard let row = try db.query("SELECT * FROM devices WHERE device_id = ?", deviceId).first else { return nil }
        return DeviceRegistration(deviceId: deviceId, userId: row.optionalString("user_id"), channel: row.string("channel"), language: row.string("language"),
                                  locale: row.string("locale"), authorization: NotificationAuthorization(rawValue: row.string("authorization")) ?? .notDetermined,
                                  launchedAt: Timestamp(milliseconds: row.int64("launched_ms")))
    }

    private func consume(_ envelope: Envelope) throws {
        guard case .order(let event) = envelope.body else { return }
        let kind: NotificationKind
        switch envelope.type {
        case .orderReady: kind = .orderReady
        case .orderCancelled: kind = .orderCancelled
        default: return
        }
        // Dedupe on the event id: a replayed or re-published event never notifies twice.
        guard try db.query("SELECT 1 AS x FROM processed_events WHERE event_id = ?", envelope.id).isEmpty else { return }
        try db.run("INSERT INTO processed_events (event_id, at_ms) VALUES (?, ?)", envelope.id, host.clock.now().milliseconds)
        var devices: [String] = []
        if let deviceId = event.order.deviceId {
            devices = [deviceId]
        } else if let userId = event.order.userId {
            devices = try db.query("SELECT device_id FROM devices WHERE user_id = ?", userId).map { $0.string("device_id") }
        }
        for deviceId in devices { try notify(deviceId, kind: kind, order: event.order) }
    }

    private func notify(_ deviceId: String, kind: NotificationKind, order: OrderSnapshot) throws {
        let now = host.clock.now()
        let registration = try registration(deviceId)
        let language = MessageCatalog.language(for: registration?.language ?? "en")
        let locale = registration?.locale ?? "en_US"
        let time = times.format(order.pickupStart, timeZone: order.timeZone, locale: locale)
        guard let text = MessageCatalog.render(kind, language: language, cafe: order.cafeName, time: time) else {
            throw ServiceError(.internalError, "no message text for \(kind.rawValue)")
        }
        // A "ready" after the pickup window has closed helps nobody: record it, do not send it.
        let reason = DeliveryPolicy.refusal(registration, now: now) ?? (now >= order.pickupEnd ? "notification.expired" : nil)
        let notification = DeviceNotification(
            notificationId: "ntf_" + UUID().uuidString.lowercased(), deviceId: deviceId, kind: kind, collapseId: order.orderId,
            title: text.title, body: text.body, language: language, orderId: order.orderId,
            expiresAt: order.pickupEnd, createdAt: now, undeliverableReason: reason)
        try db.run("INSERT INTO notifications (notification_id, device_id, kind, collapse_id, body, delivered, reason) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                   notification.notificationId, deviceId, kind.rawValue, order.orderId, String(decoding: Wire.encode(notification), as: UTF8.self), reason == nil, reason)
        guard db.changes == 1 else { return }  // collapsed: this device already has this notification for this order
        if let reason {
            host.logger.info("notification not delivered", ["device.id": deviceId, "order.id": order.orderId, "reason": reason])
            try host.emit(.notifyUndeliverable, topic: Topic.notifyUndeliverable, stream: "notify", .notification(notification))
        } else {
            try host.emit(.notifyDelivery, topic: Topic.notifyDelivery(device: deviceId), stream: "notify", .notification(notification))
        }
    }
}
