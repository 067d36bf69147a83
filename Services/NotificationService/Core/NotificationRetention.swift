import Messages

/// How long notification-service keeps what is over: delivered and undeliverable notifications,
/// and reminders that were sent, fired, cancelled or set aside. What is still to come (a pending
/// pickup reminder, an active region reminder) is never pruned, however old.
public struct NotificationRetention: Sendable, Equatable {
    /// What `--retention-days` accepts (its option's range): at least a day, at most ten years.
    public static let allowedDays = 1...3650
    /// Rows deleted per statement. Each batch commits on its own, so a large prune (a service
    /// that was down a month) never holds SQLite's write lock for long.
    public static let defaultBatchSize = 5_000

    public let days: Int
    public let batchSize: Int

    /// nil when `days` is outside `allowedDays`.
    public init?(days: Int, batchSize: Int = NotificationRetention.defaultBatchSize) {
        guard Self.allowedDays.contains(days), batchSize > 0 else { return nil }
        self.days = days
        self.batchSize = batchSize
    }

    /// What ended (a notification was created, a reminder finished) before this is deleted.
    public func cutoff(now: Timestamp) -> Timestamp {
        Timestamp(milliseconds: now.milliseconds - Int64(days) * 86_400_000)
    }
}
