import Foundation
import Messages

/// Pickup windows of a café: fixed-length slots aligned to local midnight, inside opening hours.
public struct PickupCalendar: Sendable {
    public let cafe: Cafe
    private let calendar: Calendar

    public init(cafe: Cafe) {
        self.cafe = cafe
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: cafe.timeZone) ?? TimeZone(identifier: "UTC")!
        self.calendar = calendar
    }

    public var windowSeconds: Double { Double(cafe.pickup.windowMinutes * 60) }

    /// Whether `start` is the start of a window (aligned, and the whole window within opening hours).
    public func isWindowStart(_ start: Timestamp) -> Bool {
        let local = calendar.dateComponents([.weekday, .hour, .minute, .second, .nanosecond], from: start.date)
        guard local.second == 0, start.milliseconds % 1000 == 0 else { return false }
        let minute = (local.hour ?? 0) * 60 + (local.minute ?? 0)
        guard minute % cafe.pickup.windowMinutes == 0 else { return false }
        return isOpen(weekday: isoWeekday(local.weekday ?? 1), from: minute, to: minute + cafe.pickup.windowMinutes)
    }

    /// Whether `start` falls on the café's window grid (whatever the hours).
    public func isAligned(_ start: Timestamp) -> Bool {
        let local = calendar.dateComponents([.hour, .minute, .second], from: start.date)
        guard local.second == 0, start.milliseconds % 1000 == 0 else { return false }
        return ((local.hour ?? 0) * 60 + (local.minute ?? 0)) % cafe.pickup.windowMinutes == 0
    }

    /// Whether the café is open at `time` (local opening hours).
    public func isOpen(at time: Timestamp) -> Bool {
        let local = calendar.dateComponents([.weekday, .hour, .minute], from: time.date)
        let minute = (local.hour ?? 0) * 60 + (local.minute ?? 0)
        let weekday = isoWeekday(local.weekday ?? 1)
        return cafe.hours.contains { $0.days.contains(weekday) && $0.openMinute <= minute && minute < $0.closeMinute }
    }

    /// The first `count` window starts that begin after `now`, within opening hours (searching up to 8 days).
    public func windows(after now: Timestamp, count: Int) -> [Timestamp] {
        var result: [Timestamp] = []
        let limit = now.milliseconds + 8 * 86_400_000
        var day = calendar.startOfDay(for: now.date)
        // Walk each local day's grid in wall-clock minutes from its own midnight. A fixed step in
        // milliseconds from one midnight drifts off the grid after a daylight-saving change (by an
        // hour: every start of a 90- or 120-minute window would then be off the grid).
        while result.count < count, Timestamp(day).milliseconds < limit {
            guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { break }
            let nextDay = calendar.startOfDay(for: next)
            // Without a change that day, wall-clock minutes are plain offsets from midnight (cheap);
            // on the day of a change, the calendar resolves each one.
            let steady = calendar.timeZone.secondsFromGMT(for: day) == calendar.timeZone.secondsFromGMT(for: nextDay)
            for minute in stride(from: 0, to: 1440, by: cafe.pickup.windowMinutes) {
                let date = steady
                    ? day.addingTimeInterval(Double(minute * 60))
                    : calendar.date(bySettingHour: minute / 60, minute: minute % 60, second: 0, of: day)
                guard result.count < count, let date else { break }
                let start = Timestamp(date)
                if start.milliseconds >= limit { break }
                // A time skipped by the change resolves to a later one; take each start once, in order.
                let isNew = start > (result.last ?? now)
                if isNew, isWindowStart(start) { result.append(start) }
            }
            day = nextDay
        }
        return result
    }

    private func isOpen(weekday: Int, from: Int, to: Int) -> Bool {
        cafe.hours.contains { $0.days.contains(weekday) && $0.openMinute <= from && to <= $0.closeMinute }
    }

    private func isoWeekday(_ gregorian: Int) -> Int { gregorian == 1 ? 7 : gregorian - 1 }
}
