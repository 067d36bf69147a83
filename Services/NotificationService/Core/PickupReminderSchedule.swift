import Foundation
import Messages

/// When to remind a customer that their pickup window starts: a lead time before `pickupStart`,
/// for an order that is accepted or being prepared. Ready, collected, cancelled and no-show orders
/// need no reminder (ready gets its own notification).
public struct PickupReminderSchedule: Sendable, Equatable {
    /// Seconds before the window's start; nil when pickup reminders are off.
    public var leadSeconds: Double?

    /// `leadSeconds` of 0 or less turns pickup reminders off.
    public init(leadSeconds: Double) {
        self.leadSeconds = leadSeconds > 0 ? leadSeconds : nil
    }

    /// What an order event does to the order's reminder.
    public enum Action: Sendable, Equatable {
        /// Schedule it (if not already scheduled or sent) for this time.
        case schedule(at: Timestamp)
        /// The order no longer needs one: drop a pending reminder.
        case cancel
    }

    public func action(for order: OrderSnapshot) -> Action {
        guard let leadSeconds else { return .cancel }
        switch order.state {
        case .placed, .accepted, .preparing: return .schedule(at: order.pickupStart.adding(seconds: -leadSeconds))
        case .ready, .pickedUp, .cancelled, .noShow: return .cancel
        }
    }

    /// Whether a reminder due at `dueAt` fires now. One found after its window has ended fires too:
    /// it is then recorded as expired rather than sent, so an outage shows in the record.
    public static func isDue(_ dueAt: Timestamp, now: Timestamp) -> Bool { dueAt <= now }
}

/// What a region reminder request must satisfy, and what an arrival does to it.
public enum RegionReminderRules {
    public static let maxTextCharacters = 200
    public static let maxActivePerDevice = 20

    /// Why the reminder text is refused; nil when it is fine.
    public static func textProblem(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return "the reminder text is empty" }
        if text.count > maxTextCharacters { return "the reminder text has \(text.count) characters; at most \(maxTextCharacters)" }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return "the reminder text contains control characters" }
        return nil
    }

    /// Whether a region event means "this device arrived at this café": the campus monitor's
    /// condition named by the café id became satisfied. Other monitors' identifiers mean what
    /// their owners say, and `.area` circles are far wider than a café.
    public static func arrivalCafe(_ event: RegionEvent, campusMonitor: String = "campus") -> String? {
        guard event.monitor == campusMonitor, event.state == .satisfied, !event.identifier.contains(".") else { return nil }
        return event.identifier
    }

    /// The reminder after it fired at `at`: a one-shot one is done, a repeating one stays active.
    public static func fired(_ reminder: RegionReminder, at: Timestamp) -> RegionReminder {
        var next = reminder
        next.firedAt = at
        if reminder.oneShot { next.state = .fired }
        return next
    }
}
