import Messages
import SQLite

/// The webhook side of the push rows: deliveries of one receiver held back together (its breaker
/// open, a 429's Retry-After, its secret missing) and let go together. Writes run inside the
/// caller's transaction.
extension NotifyStore {
    /// The channel name a webhook delivery's row carries.
    static let webhookChannel = "webhook"

    /// Holds every pending delivery to `endpoint` due before `until` until then, with `reason`
    /// (not an attempt): the sender reads them again only when they may go.
    func deferWebhookPushes(endpoint: String, until: Timestamp, reason: String, at now: Timestamp) throws {
        try db.run("""
            UPDATE notifications SET push_next_ms = ?, push_reason = ?, push_updated_ms = ?
            WHERE push_state = 'pending' AND push_channel = 'webhook' AND push_next_ms < ?
              AND device_id IN (SELECT device_id FROM devices WHERE webhook_endpoint = ?)
            """, until.milliseconds, reason, now.milliseconds, until.milliseconds, endpoint)
    }

    /// Lets the deliveries held for `reason` go now (the breaker closed, the secrets were read
    /// again); every receiver's when `endpoint` is nil.
    func releaseWebhookPushes(endpoint: String?, reason: String, at now: Timestamp) throws {
        try db.run("""
            UPDATE notifications SET push_next_ms = ?, push_updated_ms = ?
            WHERE push_state = 'pending' AND push_channel = 'webhook' AND push_reason = ? AND push_next_ms > ?
              AND (? IS NULL OR device_id IN (SELECT device_id FROM devices WHERE webhook_endpoint = ?))
            """, now.milliseconds, now.milliseconds, reason, now.milliseconds, endpoint, endpoint)
    }
}
