import Foundation
import Messages

/// When to remind a customer that their pickup window starts: a lead time before `pickupStart`,
/// for an order that is accepted or being prepared. Ready, collected, cancelled and no-show orders
/// need no reminder (ready gets its own notification). An order placed so close to its window
/// that the reminder would come less than `minimumNoticeSeconds` after the order gets none: a
/// "coming up" the moment you order tells you nothing.
public struct PickupReminderSchedule: Sendable, Equatable {
    /// A reminder is useful only this long after the order was placed, or later.
    public static let minimumNoticeSeconds = 120.0

    /// Seconds before the window's start; nil when pickup reminders are off.
    public var leadSeconds: Double?
    /// A reminder due less than this long after the order was placed is not sent.
    public var noticeSeconds: Double

    /// `leadSeconds` of 0 or less turns pickup reminders off.
    public init(leadSeconds: Double, noticeSeconds: Double = minimumNoticeSeconds) {
        self.leadSeconds = leadSeconds > 0 ? leadSeconds : nil
        self.noticeSeconds = noticeSeconds
    }

    /// What an order event does to the order's reminder.
    public enum Action: Sendable, Equatable {
        /// Schedule it (if not already scheduled or sent) for this time.
        case schedule(at: Timestamp)
        /// The order no longer needs one: drop a pending reminder.
        case cancel
    }

    /// What an order event in `order`'s state does to its pickup reminder.
    public func action(for order: OrderSnapshot) -> Action {
        guard let leadSeconds else { return .cancel }
        switch order.state {
        case .placed, .accepted, .preparing:
            let due = order.pickupStart.adding(seconds: -leadSeconds)
            return due.seconds(since: order.placedAt) >= noticeSeconds ? .schedule(at: due) : .cancel
        case .ready, .pickedUp, .cancelled, .noShow: return .cancel
        }
    }

    /// Whether a reminder due at `dueAt` fires now. One found after its window has ended fires too:
    /// it is then recorded as expired rather than sent, so an outage shows in the record.
    public static func isDue(_ dueAt: Timestamp, now: Timestamp) -> Bool { dueAt <= now }
}
