import Foundation
import Messages
import NotifyCore
@testable import NotifyServer
import SQLite
import ServiceRuntime
import Testing
import TestSupport

/// Bounded retention in notification-service's shell: a real SQLite file, the clock moved by
/// hand, the prune called as its timer and start-up call it.
@Suite("Notification retention: what is over goes after --retention-days")
struct NotifyRetentionTests {
    @Test("notifications 29 days old are kept, 31 days old are gone, delivered and undeliverable alike")
    func notificationsByAge() throws {
        let h = try NotifyHarness()
        try h.register("phone-1")
        try h.register("phone-denied", authorization: .denied)
        let old = try h.readyNotification("ord-old")
        try h.readyNotification("ord-old-denied", device: "phone-denied")
        h.clock.advance(days: 2)
        let newer = try h.readyNotification("ord-newer")
        #expect(try h.count("SELECT COUNT(*) AS n FROM notifications WHERE delivered = 0") == 1)

        h.clock.advance(days: 27)  // the first two are 29 days old
        try h.service.pruneExpired()
        #expect(try h.inbox() == [old, newer])
        #expect(try h.count("SELECT COUNT(*) AS n FROM notifications") == 3)

        h.clock.advance(days: 2)  // 31 days and 29 days
        let counts = try h.service.pruneExpired()
        #expect(counts.notifications == 2)
        #expect(try h.inbox() == [newer])
        #expect(try h.count("SELECT COUNT(*) AS n FROM notifications WHERE delivered = 0") == 0, "the undeliverable record went too")
    }

    @Test("an active reminder and a pending pickup reminder are kept however old; ended ones go once ended longer ago than the retention")
    func remindersByState() throws {
        let h = try NotifyHarness()
        try h.register("phone-1")
        let active = try h.service.setReminder(SetReminder(deviceId: "phone-1", cafeId: "macs-coffee", text: "still waiting"))
        let repeating = try h.service.setReminder(SetReminder(deviceId: "phone-1", cafeId: "caffe-macs", text: "every time", oneShot: false))
        let oneShot = try h.service.setReminder(SetReminder(deviceId: "phone-1", cafeId: "caffe-macs", text: "once"))
        let cancelledEarly = try h.service.setReminder(SetReminder(deviceId: "phone-1", cafeId: "parmer-lane-5", text: "never mind"))
        let cancelledLate = try h.service.setReminder(SetReminder(deviceId: "phone-1", cafeId: "parmer-lane-5", text: "changed my mind later"))
        try h.arrive("phone-1", at: "caffe-macs")  // fires the one-shot (done) and the repeating one (still active)
        _ = try h.service.cancelReminder(CancelReminder(deviceId: "phone-1", reminderId: cancelledEarly.reminderId))

        // Pickup reminders: one far ahead (pending), one cancelled with its order, one sent.
        try h.apply(.orderAccepted, h.order("ord-pending", .accepted, startsIn: 40 * 86_400))
        try h.apply(.orderAccepted, h.order("ord-cancelled", .accepted, startsIn: 3_600))
        try h.apply(.orderCancelled, h.order("ord-cancelled", .cancelled, startsIn: 3_600))
        // Placed an hour ago for a window 5 minutes away: its reminder is due, and useful.
        var sent = h.order("ord-sent", .accepted, startsIn: 300)
        sent.placedAt = h.clock.now().adding(seconds: -3600)
        try h.apply(.orderAccepted, sent)
        try h.service.sendDuePickupReminders()
        #expect(try h.pickupStates() == ["ord-cancelled": "cancelled", "ord-pending": "pending", "ord-sent": "sent"])

        h.clock.advance(days: 20)
        _ = try h.service.cancelReminder(CancelReminder(deviceId: "phone-1", reminderId: cancelledLate.reminderId))
        h.clock.advance(days: 11)  // 31 days after everything but the late cancel
        let counts = try h.service.pruneExpired()

        #expect(counts.regionReminders == 2 && counts.pickupReminders == 2)
        let kept = try h.service.listReminders(ReminderQuery(deviceId: "phone-1", includeDone: true)).reminders
        #expect(Set(kept.map(\.reminderId)) == [active.reminderId, repeating.reminderId, cancelledLate.reminderId])
        #expect(!kept.contains { $0.reminderId == oneShot.reminderId })
        #expect(try h.pickupStates() == ["ord-pending": "pending"])
        #expect(try h.count("SELECT COUNT(*) AS n FROM notifications") == 0, "the reminders' notifications are 31 days old too")

        // The active one still fires, 31 days on.
        try h.arrive("phone-1", at: "macs-coffee")
        #expect(try h.service.listReminders(ReminderQuery(deviceId: "phone-1")).reminders.map(\.reminderId) == [repeating.reminderId])
        #expect(try h.count("SELECT COUNT(*) AS n FROM notifications WHERE kind = 'regionReminder'") == 1)
    }

    @Test("the inbox reads after a prune: since a kept notification, from the start, and new ones after it")
    func inboxAfterPrune() throws {
        let h = try NotifyHarness()
        try h.register("phone-1")
        let a = try h.readyNotification("ord-a")
        h.clock.advance(days: 2)
        let b = try h.readyNotification("ord-b")
        h.clock.advance(days: 1)
        let c = try h.readyNotification("ord-c")
        h.clock.advance(days: 27.5)  // a is 30.5 days old, b 28.5, c 27.5
        try h.service.pruneExpired()

        #expect(try h.inbox() == [b, c])
        #expect(try h.inbox(since: b) == [c])
        #expect(try h.inbox(since: c) == [])
        let d = try h.readyNotification("ord-d")
        #expect(try h.inbox(since: c) == [d])
        // The pruned one is refused as any unknown id, and the message says why it may be gone.
        #expect(errorCode { _ = try h.inbox(since: a) } == ErrorCode.unknownNotification.rawValue)
        let message = serviceErrorMessage { _ = try h.inbox(since: a) }
        #expect(message.contains("kept 30 days"), "\(message)")
    }

    @Test("a service that was down past the retention catches up when it starts")
    func pruneAtStart() throws {
        let h = try NotifyHarness()
        try h.register("phone-1")
        try h.readyNotification("ord-before-outage")
        h.clock.advance(days: 45)
        try h.restart()
        #expect(try h.count("SELECT COUNT(*) AS n FROM notifications") == 0)
        #expect(try h.health()["retention.pruned"] == "1")
    }

    @Test("a prune larger than one batch deletes everything old, batch after batch, and nothing new")
    func batches() throws {
        let h = try NotifyHarness()
        try h.register("phone-1")
        let old = NotifyHarness.t0.adding(seconds: -31 * 86_400).milliseconds
        // 12,001 rows: two full 5,000-row batches and a partial one.
        try h.host.db.run("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12001)
            INSERT INTO notifications (notification_id, device_id, kind, collapse_id, once_key, body, delivered, reason, created_ms)
            SELECT 'ntf_old_' || i, 'phone-1', 'orderReady', 'ord-' || i, 'ord-' || i, '{}', 1, NULL, ? FROM n
            """, old)
        let kept = try h.readyNotification("ord-today")
        #expect(NotificationRetention.defaultBatchSize == 5_000)
        #expect(try h.service.pruneExpired().notifications == 12_001)
        #expect(try h.inbox() == [kept])
    }

    @Test("health shows the notifications held and the retention")
    func health() throws {
        let h = try NotifyHarness(retentionDays: 7)
        try h.register("phone-1")
        try h.register("phone-denied", authorization: .denied)
        try h.readyNotification("ord-1")
        try h.readyNotification("ord-2")
        try h.readyNotification("ord-3", device: "phone-denied")
        var details = try h.health()
        #expect(details["notifications.held"] == "3")
        #expect(details["notifications.delivered"] == "2" && details["notifications.undeliverable"] == "1")
        #expect(details["retention.days"] == "7")
        h.clock.advance(days: 8)
        try h.service.pruneExpired()
        details = try h.health()
        #expect(details["notifications.held"] == "0")
        #expect(details["retention.pruned"] == "3")
    }

    @Test("migration 3 dates existing rows: notifications by their createdAt, ended reminders by what they have")
    func migrationDatesExistingRows() throws {
        let created = Timestamp(rfc3339: "2026-11-20T09:41:07.123Z")!
        let h = try NotifyHarness(start: created.adding(seconds: 3_600)) { path in
            let db = try Database(path: path.path)
            defer { db.close() }
            try db.migrate("notification-service", Array(NotifyStore.migrations.prefix(2)))
            let body = #"{"notificationId":"ntf-1","deviceId":"phone-1","kind":"orderReady","collapseId":"ord-1","title":"t","body":"b","language":"en","createdAt":"2026-11-20T09:41:07.123Z"}"#
            try db.run("INSERT INTO notifications (notification_id, device_id, kind, collapse_id, once_key, body, delivered) VALUES ('ntf-1', 'phone-1', 'orderReady', 'ord-1', 'ord-1', ?, 1)", body)
            try db.run("INSERT INTO pickup_reminders (order_id, due_ms, snapshot, state) VALUES ('ord-1', 1000, '{}', 'sent'), ('ord-2', 2000, '{}', 'pending')")
            try db.run("""
                INSERT INTO region_reminders (reminder_id, device_id, cafe_id, text, one_shot, state, created_ms, fired_ms) VALUES
                ('r-fired', 'phone-1', 'c', 't', 1, 'fired', 10, 20), ('r-cancelled', 'phone-1', 'c', 't', 1, 'cancelled', 30, NULL),
                ('r-active', 'phone-1', 'c', 't', 1, 'active', 40, NULL)
                """)
        }
        #expect(try h.host.db.schemaVersion(of: "notification-service") == NotifyStore.migrations.count)
        #expect(try h.count("SELECT created_ms AS n FROM notifications WHERE notification_id = 'ntf-1'") == Int(created.milliseconds))
        // The ended ones (dated 1970 by these made-up times) went at start; pending and active stayed.
        #expect(try h.pickupStates() == ["ord-2": "pending"])
        #expect(try h.host.db.query("SELECT reminder_id FROM region_reminders").map { $0.string("reminder_id") } == ["r-active"])
        #expect(try h.count("SELECT COUNT(*) AS n FROM notifications") == 1)
    }
}

extension NotifyHarness {
    func pickupStates() throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try host.db.query("SELECT order_id, state FROM pickup_reminders").map { ($0.string("order_id"), $0.string("state")) })
    }
}

func serviceErrorMessage(_ body: () throws -> Void) -> String {
    do {
        try body()
        return ""
    } catch let error as ServiceError {
        return error.message
    } catch {
        return "\(error)"
    }
}
