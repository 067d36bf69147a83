import Foundation
import Messages
import NotifyCore
import ServiceRuntime

/// Order and region events, applied inside the follower's transaction with its cursor (the
/// follower has already skipped an event id applied before), and the pickup-reminder timer.
extension NotifyService {
    func consume(_ envelope: Envelope) throws {
        switch envelope.body {
        case .order(let event):
            try order(envelope.type, event, publishedAt: envelope.time)
        case .region(let event):
            guard let cafeId = RegionReminderRules.arrivalCafe(event) else { return }
            let reminders = try store.activeReminders(deviceId: event.deviceId, cafeId: cafeId)
            guard !reminders.isEmpty else { return }
            try arrival(event, cafeId: cafeId, reminders: reminders, eventId: envelope.id)
        case .nearest, .purged:
            break  // region-monitor's other events: nothing to notify
        default:
            throw ServiceError(.unknownType, "notification-service does not consume \(envelope.type.rawValue)")
        }
    }

    private func order(_ type: EventType, _ event: OrderEvent, publishedAt: Timestamp) throws {
        var event = event
        // An order placed before `noShowAt` existed: its ready is worth telling until the
        // café's grace after the window, as the catalog says.
        if event.order.noShowAt == nil, let grace = catalog.cafe(event.order.cafeId)?.pickup.graceMinutes {
            event.order.noShowAt = event.order.pickupEnd.adding(seconds: Double(grace * 60))
        }
        let order = event.order
        try store.learnCafe(order.cafeId, name: order.cafeName)
        // A Live Activity for the order gets every state change, newest first.
        if let previous = try store.activityTimestamp(order.orderId) {
            try store.queueActivity(LiveActivityUpdate(order, now: now, previous: previous), at: now)
            pushes?.wake()
        }
        switch schedule.action(for: order) {
        case .schedule(let at): try store.schedulePickupReminder(order, at: at)
        case .cancel: try store.endPickupReminder(order.orderId, as: .cancelled, at: now)
        }
        guard let subject = OrderNotifications.subject(type, event), case .order(let kind, _, _) = subject else { return }
        let devices = try recipients(order)
        for deviceId in devices {
            try notify(subject, deviceId: deviceId, onceKey: OrderNotifications.onceKey(kind, order))
        }
        if !devices.isEmpty { orderToNotification.record(seconds: now.seconds(since: publishedAt)) }
    }

    /// The order's device and every device registered for its user.
    private func recipients(_ order: OrderSnapshot) throws -> [String] {
        let devices = OrderNotifications.recipients(orderDevice: order.deviceId, userDevices: try order.userId.map(store.devices(ofUser:)) ?? [])
        if devices.isEmpty { logger.debug("order with no device to notify", ["order.id": order.orderId]) }
        return devices
    }

    private func arrival(_ event: RegionEvent, cafeId: String, reminders: [RegionReminder], eventId: String) throws {
        let cafeName = try cafeName(cafeId)
        for reminder in reminders {
            try notify(.regionReminder(reminder, cafeName: cafeName), deviceId: reminder.deviceId, onceKey: RegionReminderRules.onceKey(reminder, eventId: eventId))
            // A repeating reminder stays active: it has not ended, and retention keeps it.
            try store.update(RegionReminderRules.fired(reminder, at: event.date), at: now)
        }
    }

    /// Sends the pickup reminders that are due, each with its state change in one transaction.
    func sendDuePickupReminders() throws {
        let at = now
        for due in try store.duePickupReminders(now: at, limit: 200) where PickupReminderSchedule.isDue(due.dueAt, now: at) {
            guard let order = due.order else {
                // Set aside, or it would fail every tick and hold up the reminders behind it.
                logger.error("pickup reminder unreadable, set aside", ["order.id": due.orderId])
                try events.write { try store.setAsideUnreadable(due.orderId, at: at) }
                continue
            }
            try events.write {
                for deviceId in try recipients(order) {
                    try notify(.order(.pickupReminder, order, reason: nil), deviceId: deviceId, onceKey: order.orderId)
                }
                try store.endPickupReminder(order.orderId, as: .sent, at: at)
            }
        }
    }
}
