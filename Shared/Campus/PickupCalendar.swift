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

    /// The first `count` window starts that begin after `now`, within opening hours (searching up to 8 days).
    public func windows(after now: Timestamp, count: Int) -> [Timestamp] {
        var result: [Timestamp] = []
        let step = Int64(cafe.pickup.windowMinutes) * 60_000
        // Align to the window grid of local time: local midnight is a grid point.
        let startOfDay = Timestamp(calendar.startOfDay(for: now.date))
        var candidate = startOfDay.milliseconds + ((now.milliseconds - startOfDay.milliseconds) / step + 1) * step
        let limit = now.milliseconds + 8 * 86_400_000
        while result.count < count, candidate < limit {
            let t = Timestamp(milliseconds: candidate)
            if isWindowStart(t) { result.append(t) }
            candidate += step
        }
        return result
    }

    private func isOpen(weekday: Int, from: Int, to: Int) -> Bool {
        cafe.hours.contains { $0.days.contains(weekday) && $0.openMinute <= from && to <= $0.closeMinute }
    }

    private func isoWeekday(_ gregorian: Int) -> Int { gregorian == 1 ? 7 : gregorian - 1 }
}
