import Campus
import Foundation
import Messages

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
    public static func arrivalCafe(_ event: RegionEvent) -> String? {
        guard event.monitor == CampusCatalog.monitorName, event.state == .satisfied, !event.identifier.utf8.contains(UInt8(ascii: ".")) else { return nil }
        return event.identifier
    }

    /// The refusal of one more reminder for a device that has `active` ones already.
    public static func checkLimit(active: Int, deviceId: String) throws(ServiceError) {
        guard active < maxActivePerDevice else {
            throw ServiceError(.reminderLimitExceeded, "device \(deviceId) already has \(active) active reminders (at most \(maxActivePerDevice)); cancel one first")
        }
    }

    /// What may notify the device only once: a one-shot reminder itself, a repeating one once per
    /// arrival (the event that brought it).
    public static func onceKey(_ reminder: RegionReminder, eventId: String) -> String {
        reminder.oneShot ? reminder.reminderId : reminder.reminderId + "@" + eventId
    }

    /// The reminder after a cancel: an active one is cancelled; one that already ended is left as
    /// it is (cancelling is idempotent). nil when nothing changes.
    public static func cancelled(_ reminder: RegionReminder) -> RegionReminder? {
        guard reminder.state == .active else { return nil }
        var next = reminder
        next.state = .cancelled
        return next
    }

    /// The reminder after it fired at `at`: a one-shot one is done, a repeating one stays active.
    public static func fired(_ reminder: RegionReminder, at: Timestamp) -> RegionReminder {
        var next = reminder
        next.firedAt = at
        if reminder.oneShot { next.state = .fired }
        return next
    }
}
