import Foundation
import Messages
import NotifyCore
import ServiceRuntime

/// Order and region events, applied inside the follower's transaction with its cursor, and the
/// pickup-reminder timer.
extension NotifyService {
    func consume(_ envelope: Envelope) throws {
        switch envelope.body {
        case .order(let event):
            guard try firstTime(envelope) else { return }
            try order(envelope.type, event)
        case .region(let event):
            guard let cafeId = RegionReminderRules.arrivalCafe(event) else { return }
            let rows = try db.query("SELECT * FROM region_reminders WHERE device_id = ? AND cafe_id = ? AND state = 'active' ORDER BY created_ms, rowid",
                                    event.deviceId, cafeId)
            guard !rows.isEmpty, try firstTime(envelope) else { return }
            try arrival(event, cafeId: cafeId, reminders: rows.map(Self.reminder), eventId: envelope.id)
        case .nearest, .purged:
            break  // region-monitor's other events: nothing to notify
        default:
            throw ServiceError(.unknownType, "notification-service does not consume \(envelope.type.rawValue)")
        }
    }

    /// Remembers the event id in the transaction of its effect; false when it was applied before
    /// (the same event again under another seq or source: a republished or replayed copy).
    private func firstTime(_ envelope: Envelope) throws -> Bool {
        try db.run("INSERT INTO processed_events (event_id, at_ms) VALUES (?, ?) ON CONFLICT DO NOTHING", envelope.id, now.milliseconds)
        if db.changes == 1 { return true }
        deduplicated += 1
        host.logger.info("event already applied, skipped", ["event.id": envelope.id, "event.type": envelope.type.rawValue, "event.source": envelope.source])
        return false
    }

    private func order(_ type: EventType, _ event: OrderEvent) throws {
        let order = event.order
        try db.run("INSERT INTO cafes (cafe_id, name) VALUES (?, ?) ON CONFLICT(cafe_id) DO UPDATE SET name = excluded.name", order.cafeId, order.cafeName)
        switch schedule.action(for: order) {
        case .schedule(let at):
            try db.run("""
                INSERT INTO pickup_reminders (order_id, due_ms, snapshot, state) VALUES (?, ?, ?, 'pending')
                ON CONFLICT(order_id) DO UPDATE SET due_ms = excluded.due_ms, snapshot = excluded.snapshot WHERE state = 'pending'
                """, order.orderId, at.milliseconds, String(decoding: Wire.encode(order), as: UTF8.self))
        case .cancel:
            try db.run("UPDATE pickup_reminders SET state = 'cancelled', ended_ms = ? WHERE order_id = ? AND state = 'pending'", now.milliseconds, order.orderId)
        }
        // order.arrived and order.claimed carry the unchanged state: no transition to tell anyone about.
        guard type != .orderArrived, type != .orderClaimed, let kind = OrderNotifications.kind(for: order.state) else { return }
        for deviceId in try recipients(order) {
            try notify(.order(kind, order, reason: kind == .orderReady ? nil : event.reason), deviceId: deviceId, onceKey: order.orderId)
        }
    }

    /// The order's device and every device registered for its user.
    private func recipients(_ order: OrderSnapshot) throws -> [String] {
        let userDevices = try order.userId.map { try db.query("SELECT device_id FROM devices WHERE user_id = ?", $0).map { $0.string("device_id") } } ?? []
        let devices = OrderNotifications.recipients(orderDevice: order.deviceId, userDevices: userDevices)
        if devices.isEmpty { host.logger.debug("order with no device to notify", ["order.id": order.orderId]) }
        return devices
    }

    private func arrival(_ event: RegionEvent, cafeId: String, reminders: [RegionReminder], eventId: String) throws {
        let cafeName = try cafeName(cafeId)
        for reminder in reminders {
            // A repeating reminder notifies once per arrival; a one-shot one once.
            let onceKey = reminder.oneShot ? reminder.reminderId : reminder.reminderId + "@" + eventId
            try notify(.regionReminder(reminder, cafeName: cafeName), deviceId: reminder.deviceId, onceKey: onceKey)
            let fired = RegionReminderRules.fired(reminder, at: event.date)
            // A repeating reminder stays active: it has not ended, and retention keeps it.
            try db.run("UPDATE region_reminders SET state = ?, fired_ms = ?, ended_ms = ? WHERE reminder_id = ?", fired.state.rawValue, fired.firedAt?.milliseconds,
                       fired.state == .active ? nil : now.milliseconds, reminder.reminderId)
        }
    }

    /// Sends the pickup reminders that are due, each with its state change in one transaction.
    func sendDuePickupReminders() throws {
        let at = now
        let due = try db.query("SELECT order_id, due_ms, snapshot FROM pickup_reminders WHERE state = 'pending' AND due_ms <= ? ORDER BY due_ms LIMIT 200", at.milliseconds)
        for row in due where PickupReminderSchedule.isDue(Timestamp(milliseconds: row.int64("due_ms")), now: at) {
            guard let order = try? JSONDecoder().decode(OrderSnapshot.self, from: Data(row.string("snapshot").utf8)) else {
                // Set aside, or it would fail every tick and hold up the reminders behind it.
                host.logger.error("pickup reminder unreadable, set aside", ["order.id": row.string("order_id")])
                try host.write { try db.run("UPDATE pickup_reminders SET state = 'unreadable', ended_ms = ? WHERE order_id = ?", at.milliseconds, row.string("order_id")) }
                continue
            }
            try host.write {
                for deviceId in try recipients(order) {
                    try notify(.order(.pickupReminder, order, reason: nil), deviceId: deviceId, onceKey: order.orderId)
                }
                try db.run("UPDATE pickup_reminders SET state = 'sent', ended_ms = ? WHERE order_id = ? AND state = 'pending'", at.milliseconds, order.orderId)
            }
        }
    }
}
