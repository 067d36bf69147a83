import Foundation
import Messages
import NotifyCore
import SQLite

/// A push whose time has come: its notification as stored, and how often it was tried.
struct DuePush {
    var notification: DeviceNotification
    var attempts: Int
    var expiresAt: Timestamp
}

/// The APNs side of a notification's row: its push's state, attempts, next try and APNs' last
/// answer. Every write here runs inside the caller's transaction, beside the state it goes with.
extension NotifyStore {
    /// Starts a notification's push on `channel` (`apns` or `webhook`): pending from `at` (or
    /// later, while APNs has its device throttled), tried until `expiresAt`.
    func startPush(_ notificationId: String, at: Timestamp, expiresAt: Timestamp, channel: String = "apns") throws {
        try db.run("""
            UPDATE notifications SET push_state = 'pending', push_expires_ms = ?, push_updated_ms = ?, push_channel = ?,
                push_next_ms = max(?, COALESCE((SELECT apns_throttled_until_ms FROM devices WHERE devices.device_id = notifications.device_id), 0))
            WHERE notification_id = ?
            """, expiresAt.milliseconds, at.milliseconds, channel, at.milliseconds, notificationId)
    }

    /// Pending pushes of `channel` due at `now`, oldest first, leaving out `excluding` (those in flight).
    func duePushes(now: Timestamp, limit: Int, excluding: Set<String>, channel: String = "apns") throws -> [DuePush] {
        let rows = try db.query("""
            SELECT notification_id, body, push_attempts, push_expires_ms FROM notifications
            WHERE push_state = 'pending' AND push_next_ms <= ? AND push_channel = ? ORDER BY push_next_ms, seq LIMIT ?
            """, now.milliseconds, channel, limit + excluding.count)
        var due: [DuePush] = []
        for row in rows where !excluding.contains(row.string("notification_id")) && due.count < limit {
            guard let notification = try? Wire.decodeStored(DeviceNotification.self, from: Data(row.string("body").utf8)) else {
                // A body that cannot be read can never be sent: set aside, or it would come up every tick.
                try recordPush(row.string("notification_id"), state: .failed, attempts: row.int("push_attempts"), nextAt: nil, status: nil,
                               reason: "unreadable", at: now)
                continue
            }
            due.append(DuePush(notification: notification, attempts: row.int("push_attempts"), expiresAt: Timestamp(milliseconds: row.int64("push_expires_ms"))))
        }
        return due
    }

    /// A push's new state after an attempt (or without one: expired, held), with APNs' answer.
    func recordPush(_ notificationId: String, state: PushState, attempts: Int, nextAt: Timestamp?, status: Int?, reason: String?, at: Timestamp) throws {
        try db.run("""
            UPDATE notifications SET push_state = ?, push_attempts = ?, push_next_ms = ?, push_status = ?, push_reason = ?, push_updated_ms = ?
            WHERE notification_id = ?
            """, state.rawValue, attempts, nextAt?.milliseconds, status, reason, at.milliseconds, notificationId)
    }

    /// A push's state and attempts, for tests and the operator.
    func push(_ notificationId: String) throws -> (state: PushState?, attempts: Int, status: Int?, reason: String?)? {
        guard let row = try db.query("SELECT push_state, push_attempts, push_status, push_reason FROM notifications WHERE notification_id = ?",
                                     notificationId).first else { return nil }
        return (row.optionalString("push_state").flatMap(PushState.init(rawValue:)), row.int("push_attempts"),
                row.optionalInt64("push_status").map { Int($0) }, row.optionalString("push_reason"))
    }

    /// Retires the device's token as of `since`, unless the device registered after that (a new launch is a live token).
    func retireToken(deviceId: String, since: Timestamp) throws {
        try db.run("UPDATE devices SET apns_retired_ms = ? WHERE device_id = ? AND launched_ms <= ?", since.milliseconds, deviceId, since.milliseconds)
    }

    /// Holds every push of the device, pending or made later, until `until` at least (APNs throttled it).
    func deferPushes(deviceId: String, until: Timestamp) throws {
        try db.run("UPDATE notifications SET push_next_ms = max(push_next_ms, ?) WHERE device_id = ? AND push_state = 'pending'", until.milliseconds, deviceId)
        try db.run("UPDATE devices SET apns_throttled_until_ms = ? WHERE device_id = ?", until.milliseconds, deviceId)
    }

    /// Push counts of `channel` for health, named `<prefix>.…`: attempts made and retried, and pushes per state.
    func pushCounts(channel: String = "apns", prefix: String = "push") -> [String: String] {
        var counts: [String: String] = [:]
        let attempts = try? db.query("""
            SELECT COALESCE(SUM(push_attempts), 0) AS sent, COALESCE(SUM(MAX(push_attempts - 1, 0)), 0) AS retried FROM notifications
            WHERE push_state IS NOT NULL AND push_channel = ?
            """, channel).first
        counts["\(prefix).sent"] = attempts.map { "\($0.int64("sent"))" } ?? "-1"
        counts["\(prefix).retried"] = attempts.map { "\($0.int64("retried"))" } ?? "-1"
        let states = (try? db.query("SELECT push_state, COUNT(*) AS n FROM notifications WHERE push_state IS NOT NULL AND push_channel = ? GROUP BY push_state",
                                    channel)) ?? []
        for state in PushState.allCases {
            counts["\(prefix).\(state.rawValue)"] = "\(states.first { $0.string("push_state") == state.rawValue }?.int("n") ?? 0)"
        }
        return counts
    }
}

extension NotifyStore {
    /// When a push stops being tried (its notification's `expiresAt`); nil when it has no push.
    func pushExpiry(_ notificationId: String) throws -> Int64? {
        try db.query("SELECT push_expires_ms FROM notifications WHERE notification_id = ?", notificationId).first?.optionalInt64("push_expires_ms")
    }
}
