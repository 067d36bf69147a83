import Foundation
import NotifyCore
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
    /// region reminders have no end and are never deleted. Runs whole at start (before the
    /// service takes work); afterwards the host's `Pruner` runs it a batch at a time (`addRetention`).
    @discardableResult
    func pruneExpired() throws -> PruneCounts {
        let cutoff = retention.cutoff(now: now).milliseconds
        var counts = PruneCounts()
        counts.notifications = try store.pruneNotifications(before: cutoff, batchSize: retention.batchSize)
        counts.pickupReminders = try store.prunePickupReminders(before: cutoff, batchSize: retention.batchSize)
        counts.regionReminders = try store.pruneRegionReminders(before: cutoff, batchSize: retention.batchSize)
        pruned += counts.total
        if counts.total > 0 {
            logger.info("retention pruned", ["retention.days": "\(retention.days)", "notifications": "\(counts.notifications)",
                                                  "reminders.pickup": "\(counts.pickupReminders)", "reminders.region": "\(counts.regionReminders)"])
        }
        return counts
    }

    /// Adds the three tables to `pruner`: one batch of each per call, a few milliseconds at most.
    func addRetention(to pruner: Pruner) {
        pruner.add("notifications") { [unowned self] limit in
            let count = try store.pruneNotifications(before: retention.cutoff(now: now).milliseconds, batchSize: limit, batches: 1)
            pruned += count
            return count
        }
        pruner.add("reminders.pickup") { [unowned self] limit in
            let count = try store.prunePickupReminders(before: retention.cutoff(now: now).milliseconds, batchSize: limit, batches: 1)
            pruned += count
            return count
        }
        pruner.add("reminders.region") { [unowned self] limit in
            let count = try store.pruneRegionReminders(before: retention.cutoff(now: now).milliseconds, batchSize: limit, batches: 1)
            pruned += count
            return count
        }
    }
}
