import Foundation
import Messages
import NotifyCore
import SQLite

/// A Live Activity update waiting to be sent: the newest state of its order (an older one is
/// never sent after a newer: iOS would drop it anyway).
struct DueActivity {
    var orderId: String
    var deviceId: String
    var destination: APNsDestination
    var timestamp: Int64
    var payload: [UInt8]
    var priority: Int
    var attempts: Int
    var expiresAt: Timestamp
}

/// Live Activities, one row per order: its push token and the newest update with its push state.
extension NotifyStore {
    /// Stores the activity a device registered for an order; a new token starts over.
    func saveActivity(_ activity: LiveActivityToken, deviceId: String, destination: APNsDestination) throws {
        try db.run("""
            INSERT INTO live_activities (order_id, device_id, token, environment, topic) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(order_id) DO UPDATE SET device_id = excluded.device_id, environment = excluded.environment, topic = excluded.topic,
                state = CASE WHEN token = excluded.token THEN state ELSE NULL END, token = excluded.token
            """, activity.orderId, deviceId, activity.token, destination.environment.rawValue, destination.topic)
    }

    /// The timestamp of the order's last update; nil when no activity is registered for it, and
    /// .some(nil) before its first update.
    func activityTimestamp(_ orderId: String) throws -> Int64?? {
        guard let row = try db.query("SELECT ts FROM live_activities WHERE order_id = ?", orderId).first else { return nil }
        return .some(row.optionalInt64("ts"))
    }

    /// Replaces the order's pending update with `update`, to be sent from `at`.
    func queueActivity(_ update: LiveActivityUpdate, at: Timestamp) throws {
        try db.run("""
            UPDATE live_activities SET ts = ?, payload = ?, priority = ?, state = 'pending', attempts = 0, next_ms = ?, expires_ms = ?, status = NULL,
                reason = NULL, updated_ms = ? WHERE order_id = ? AND (state IS NULL OR state <> 'retired')
            """, update.timestamp, String(decoding: update.payload, as: UTF8.self), update.priority, at.milliseconds, update.expiresAt.milliseconds,
                   at.milliseconds, update.orderId)
    }

    func dueActivities(now: Timestamp, limit: Int, excluding: Set<String>) throws -> [DueActivity] {
        try db.query("SELECT * FROM live_activities WHERE state = 'pending' AND next_ms <= ? ORDER BY next_ms LIMIT ?", now.milliseconds, limit + excluding.count)
            .filter { !excluding.contains($0.string("order_id")) }.prefix(limit).compactMap { row in
                guard let environment = APNsEnvironment(rawValue: row.string("environment")) else { return nil }
                return DueActivity(orderId: row.string("order_id"), deviceId: row.string("device_id"),
                                   destination: APNsDestination(token: row.string("token"), environment: environment, topic: row.string("topic")),
                                   timestamp: row.int64("ts"), payload: Array(row.string("payload").utf8), priority: row.int("priority"),
                                   attempts: row.int("attempts"), expiresAt: Timestamp(milliseconds: row.int64("expires_ms")))
            }
    }

    /// The outcome of sending the update with `timestamp`; a newer update queued meanwhile is kept.
    func recordActivity(_ orderId: String, timestamp: Int64, state: PushState, attempts: Int, nextAt: Timestamp?, status: Int?, reason: String?,
                        at: Timestamp) throws {
        try db.run("""
            UPDATE live_activities SET state = ?, attempts = ?, next_ms = ?, status = ?, reason = ?, updated_ms = ? WHERE order_id = ? AND ts = ?
            """, state.rawValue, attempts, nextAt?.milliseconds, status, reason, at.milliseconds, orderId, timestamp)
    }

    /// Activity updates per state, for health.
    func activityCounts() -> [String: String] {
        let rows = (try? db.query("SELECT state, COUNT(*) AS n FROM live_activities WHERE state IS NOT NULL GROUP BY state")) ?? []
        var counts: [String: String] = [:]
        for state in PushState.allCases { counts["activity.\(state.rawValue)"] = "\(rows.first { $0.string("state") == state.rawValue }?.int("n") ?? 0)" }
        return counts
    }
}
