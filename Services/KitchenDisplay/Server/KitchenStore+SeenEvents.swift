import Messages

/// The ids of the order events already applied, so a replayed event, whatever its seq, never
/// doubles or re-applies a change (a recalled ticket is not bumped again by an old `order.ready`).
/// Kept apart, behind `markSeen`, because one dedupe by event id in the runtime's bus consumer
/// is to replace this table.
extension KitchenStore {
    /// Records an event id; false when it was applied before.
    public func markSeen(eventId: String, at now: Timestamp) throws -> Bool {
        try db.run("INSERT INTO seen_events (event_id, at_ms) VALUES (?, ?) ON CONFLICT(event_id) DO NOTHING", eventId, now.milliseconds)
        return db.changes > 0
    }

    /// Forgets event ids older than `cutoff` (the publisher's outbox keeps a week too).
    public func pruneSeen(before cutoff: Timestamp) throws {
        try db.run("DELETE FROM seen_events WHERE at_ms < ?", cutoff.milliseconds)
    }
}
