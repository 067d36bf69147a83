import Messages
import SQLite

/// The ids of the events already applied: notification-service's own dedupe, kept until the
/// runtime's bus consumer dedupes by event id for every consumer. Everything that touches
/// `processed_events` is here, so removing it is removing this file and its two callers.
extension NotifyStore {
    /// Remembers the event id in the caller's transaction (the one applying its effect); false
    /// when it was applied before (a republished or replayed copy under another seq or source).
    func markProcessed(eventId: String, at: Timestamp) throws -> Bool {
        try db.run("INSERT INTO processed_events (event_id, at_ms) VALUES (?, ?) ON CONFLICT DO NOTHING", eventId, at.milliseconds)
        return db.changes == 1
    }

    /// Forgets ids remembered before `cutoff`: no copy of their events can come back by then.
    func forgetProcessed(before cutoff: Timestamp) throws {
        try db.run("DELETE FROM processed_events WHERE at_ms < ?", cutoff.milliseconds)
    }
}
