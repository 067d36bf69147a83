import Foundation
import Messages
import NotifyCore
import SQLite

/// A pickup reminder whose time has come; `order` is nil when its stored snapshot cannot be read.
struct DuePickupReminder {
    var orderId: String
    var dueAt: Timestamp
    var order: OrderSnapshot?
}

/// How a pending pickup reminder ends (besides being set aside as unreadable).
enum PickupReminderEnd: String {
    /// The reminder was sent (or recorded undeliverable) to the order's devices.
    case sent
    /// The order no longer needs one.
    case cancelled
}

/// Pickup reminders (one per order, kept in SQLite so a restart neither loses nor repeats one)
/// and the region reminders users set.
extension NotifyStore {
    // MARK: Pickup reminders

    /// Schedules (or moves) an order's pickup reminder; one already sent or cancelled stays so.
    func schedulePickupReminder(_ order: OrderSnapshot, at dueAt: Timestamp) throws {
        try db.run("""
            INSERT INTO pickup_reminders (order_id, due_ms, snapshot, state) VALUES (?, ?, ?, 'pending')
            ON CONFLICT(order_id) DO UPDATE SET due_ms = excluded.due_ms, snapshot = excluded.snapshot WHERE state = 'pending'
            """, order.orderId, dueAt.milliseconds, String(decoding: Wire.encode(order), as: UTF8.self))
    }

    /// Ends an order's pending pickup reminder.
    func endPickupReminder(_ orderId: String, as end: PickupReminderEnd, at: Timestamp) throws {
        try db.run("UPDATE pickup_reminders SET state = ?, ended_ms = ? WHERE order_id = ? AND state = 'pending'", end.rawValue, at.milliseconds, orderId)
    }

    /// Sets aside a reminder whose snapshot cannot be read, so it does not hold up the others.
    func setAsideUnreadable(_ orderId: String, at: Timestamp) throws {
        try db.run("UPDATE pickup_reminders SET state = 'unreadable', ended_ms = ? WHERE order_id = ?", at.milliseconds, orderId)
    }

    /// Pending pickup reminders due by `now`, earliest first, at most `limit`.
    func duePickupReminders(now: Timestamp, limit: Int) throws -> [DuePickupReminder] {
        try db.query("SELECT order_id, due_ms, snapshot FROM pickup_reminders WHERE state = 'pending' AND due_ms <= ? ORDER BY due_ms LIMIT ?",
                     now.milliseconds, limit).map { row in
            DuePickupReminder(orderId: row.string("order_id"), dueAt: Timestamp(milliseconds: row.int64("due_ms")),
                              order: try? Wire.decodeStored(OrderSnapshot.self, from: Data(row.string("snapshot").utf8)))
        }
    }

    // MARK: Region reminders

    /// The device's active reminders for a café, oldest first.
    func activeReminders(deviceId: String, cafeId: String) throws -> [RegionReminder] {
        try db.query("SELECT * FROM region_reminders WHERE device_id = ? AND cafe_id = ? AND state = 'active' ORDER BY created_ms, rowid",
                     deviceId, cafeId).map(Self.reminder)
    }

    func activeReminderCount(deviceId: String) throws -> Int {
        try db.query("SELECT COUNT(*) AS n FROM region_reminders WHERE device_id = ? AND state = 'active'", deviceId).first?.int("n") ?? 0
    }

    /// The device's reminders, oldest first: the active ones, or all it still has.
    func reminders(deviceId: String, includeDone: Bool) throws -> [RegionReminder] {
        try db.query("SELECT * FROM region_reminders WHERE device_id = ? AND (? OR state = 'active') ORDER BY created_ms, rowid",
                     deviceId, includeDone).map(Self.reminder)
    }

    /// One of the device's reminders; nil when the device has no such reminder.
    func reminder(_ reminderId: String, deviceId: String) throws -> RegionReminder? {
        try db.query("SELECT * FROM region_reminders WHERE reminder_id = ? AND device_id = ?", reminderId, deviceId).first.map(Self.reminder)
    }

    func insert(_ reminder: RegionReminder) throws {
        try db.run("INSERT INTO region_reminders (reminder_id, device_id, cafe_id, text, one_shot, state, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   reminder.reminderId, reminder.deviceId, reminder.cafeId, reminder.text, reminder.oneShot, reminder.state.rawValue,
                   reminder.createdAt.milliseconds)
    }

    /// Stores a reminder's new state and firing time; one no longer active ended `at`.
    func update(_ reminder: RegionReminder, at: Timestamp) throws {
        try db.run("UPDATE region_reminders SET state = ?, fired_ms = ?, ended_ms = ? WHERE reminder_id = ?", reminder.state.rawValue,
                   reminder.firedAt?.milliseconds, reminder.state == .active ? nil : at.milliseconds, reminder.reminderId)
    }

    static func reminder(_ row: Row) -> RegionReminder {
        RegionReminder(reminderId: row.string("reminder_id"), deviceId: row.string("device_id"), cafeId: row.string("cafe_id"), text: row.string("text"),
                       oneShot: row.bool("one_shot"), state: ReminderState(rawValue: row.string("state")) ?? .cancelled,
                       createdAt: Timestamp(milliseconds: row.int64("created_ms")), firedAt: row.optionalInt64("fired_ms").map(Timestamp.init(milliseconds:)))
    }
}
