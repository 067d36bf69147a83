import SQLite

/// Deleting what retention no longer keeps, in batches that each commit on their own.
extension NotifyStore {
    /// Deletes notifications (delivered and undeliverable) created before `cutoff`; how many.
    func pruneNotifications(before cutoff: Int64, batchSize: Int, batches: Int = .max) throws -> Int {
        try deleteInBatches("""
            DELETE FROM notifications WHERE seq IN (SELECT seq FROM notifications WHERE created_ms < ? LIMIT ?)
            """, before: cutoff, batchSize: batchSize, batches: batches)
    }

    /// Deletes pickup reminders that ended (sent, cancelled, set aside) before `cutoff`; a pending one has no end.
    func prunePickupReminders(before cutoff: Int64, batchSize: Int, batches: Int = .max) throws -> Int {
        try deleteInBatches("""
            DELETE FROM pickup_reminders WHERE order_id IN (
                SELECT order_id FROM pickup_reminders WHERE ended_ms < ? AND state IN ('sent', 'cancelled', 'unreadable') LIMIT ?)
            """, before: cutoff, batchSize: batchSize, batches: batches)
    }

    /// Deletes region reminders that ended (fired once, cancelled) before `cutoff`; an active one has no end.
    func pruneRegionReminders(before cutoff: Int64, batchSize: Int, batches: Int = .max) throws -> Int {
        try deleteInBatches("""
            DELETE FROM region_reminders WHERE rowid IN (
                SELECT rowid FROM region_reminders WHERE ended_ms < ? AND state IN ('fired', 'cancelled') LIMIT ?)
            """, before: cutoff, batchSize: batchSize, batches: batches)
    }

    /// Runs a `DELETE … LIMIT batchSize` until it deletes less than a batch, or `batches` times. Each statement is
    /// its own transaction (this is never called inside `write`), so the write lock is released
    /// between batches.
    private func deleteInBatches(_ sql: String, before cutoff: Int64, batchSize: Int, batches: Int) throws -> Int {
        precondition(!db.inTransaction, "a prune batch must commit on its own")
        var deleted = 0
        for _ in 0..<max(batches, 1) {
            try db.run(sql, cutoff, batchSize)
            let batch = db.changes
            deleted += batch
            if batch < batchSize { return deleted }
        }
        return deleted
    }
}
