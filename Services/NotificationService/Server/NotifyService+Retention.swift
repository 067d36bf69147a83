import Foundation
import NotifyCore
import SQLite
import ServiceRuntime

/// Bounded retention: what is over is deleted once it is older than `--retention-days`, so the
/// SQLite file follows a month of traffic, not every notification ever sent.
extension NotifyService {
    /// Rows one prune deleted, per table.
    struct PruneCounts: Equatable {
        var notifications = 0
        var pickupReminders = 0
        var regionReminders = 0
        var total: Int { notifications + pickupReminders + regionReminders }
    }

    /// Deletes notifications (delivered and undeliverable) created before the retention cutoff,
    /// and pickup and region reminders that ended before it. Pending pickup reminders and active
    /// region reminders have no end and are never deleted. Runs at start and hourly.
    @discardableResult
    func pruneExpired() throws -> PruneCounts {
        let cutoff = retention.cutoff(now: now).milliseconds
        var counts = PruneCounts()
        counts.notifications = try deleteInBatches("""
            DELETE FROM notifications WHERE seq IN (SELECT seq FROM notifications WHERE created_ms < ? LIMIT ?)
            """, before: cutoff)
        counts.pickupReminders = try deleteInBatches("""
            DELETE FROM pickup_reminders WHERE order_id IN (
                SELECT order_id FROM pickup_reminders WHERE ended_ms < ? AND state IN ('sent', 'cancelled', 'unreadable') LIMIT ?)
            """, before: cutoff)
        counts.regionReminders = try deleteInBatches("""
            DELETE FROM region_reminders WHERE rowid IN (
                SELECT rowid FROM region_reminders WHERE ended_ms < ? AND state IN ('fired', 'cancelled') LIMIT ?)
            """, before: cutoff)
        pruned += counts.total
        if counts.total > 0 {
            host.logger.info("retention pruned", ["retention.days": "\(retention.days)", "notifications": "\(counts.notifications)",
                                                  "reminders.pickup": "\(counts.pickupReminders)", "reminders.region": "\(counts.regionReminders)"])
        }
        return counts
    }

    /// Runs a `DELETE … LIMIT batchSize` until it deletes less than a batch. Each statement is
    /// its own transaction (this is never called inside `write`), so the write lock is released
    /// between batches.
    private func deleteInBatches(_ sql: String, before cutoff: Int64) throws -> Int {
        precondition(!db.inTransaction, "a prune batch must commit on its own")
        var deleted = 0
        while true {
            try db.run(sql, cutoff, retention.batchSize)
            let batch = db.changes
            deleted += batch
            if batch < retention.batchSize { return deleted }
        }
    }
}
