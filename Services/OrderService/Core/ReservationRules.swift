import Campus
import Messages

/// Pickup windows and the places held in them: which start may be reserved, when a window is
/// full and which one to offer instead, and who may spend a held place until when.
public enum ReservationRules {
    /// How many windows `windows.list` shows when the request does not say, and at most.
    public static let defaultWindowCount = 8
    public static let maxWindowCount = 96
    /// How far ahead a full window's refusal looks for one with room.
    public static let nextFreeSearch = 96

    /// The number of windows a `windows.list` asks for.
    public static func windowCount(_ requested: Int?) throws(ServiceError) -> Int {
        let count = requested ?? defaultWindowCount
        guard (1...maxWindowCount).contains(count) else { throw ServiceError(.invalidField, "count \(count) must be 1…\(maxWindowCount)") }
        return count
    }

    /// A start can be reserved if it is still to come and a window of the open café starts then;
    /// the refusal names the next start in `details`.
    public static func checkStart(_ start: Timestamp, cafe: Cafe, now: Timestamp) throws(ServiceError) {
        let calendar = PickupCalendar(cafe: cafe)
        guard start > now else {
            let next = calendar.windows(after: now, count: 1).first
            throw ServiceError(.windowPast, "the window at \(start) has already started" + (next.map { "; the next one starts at \($0)" } ?? ""),
                               details: next.map { ["nextStart": "\($0)"] })
        }
        guard calendar.isWindowStart(start) else {
            let next = calendar.windows(after: start.adding(seconds: -1), count: 1).first
            let why = calendar.isAligned(start) ? "is closed then" : "has no pickup window starting then"
            throw ServiceError(.windowClosed, "\(cafe.name) \(why) (\(start))" + (next.map { "; the next window starts at \($0)" } ?? ""),
                               details: next.map { ["nextStart": "\($0)"] })
        }
    }

    /// Whether a window with `taken` places (used, or held and not expired) has room for one more.
    public static func hasRoom(taken: Int, cafe: Cafe) -> Bool { taken < cafe.pickup.capacity }

    /// The later windows a full window's refusal searches, in order.
    public static func laterWindows(after start: Timestamp, cafe: Cafe) -> [Timestamp] {
        PickupCalendar(cafe: cafe).windows(after: start, count: nextFreeSearch)
    }

    /// The refusal for a full window: the first of `later` (start and places taken) with room is
    /// offered, as a local time in the message and as `nextFreeStart` in details.
    public static func full(_ start: Timestamp, cafe: Cafe, later: [(start: Timestamp, taken: Int)], locale: String,
                            times: PickupTimeFormatter) -> ServiceError {
        let next = later.first { hasRoom(taken: $0.taken, cafe: cafe) }?.start
        return ServiceError(.windowFull, "the \(times.format(start, timeZone: cafe.timeZone, locale: locale)) window at \(cafe.name) is full"
                            + (next.map { "; the next free one is \(times.format($0, timeZone: cafe.timeZone, locale: locale)) (\($0))" } ?? ""),
                            details: next.map { ["nextFreeStart": "\($0)"] })
    }

    /// The first of `upcoming` (start and places taken, in order) with room: what a reservation
    /// that names no window gets. None in the search horizon: `order.windowFull`.
    public static func nextWithRoom(_ upcoming: [(start: Timestamp, taken: Int)], cafe: Cafe) throws(ServiceError) -> Timestamp {
        guard let next = upcoming.first(where: { hasRoom(taken: $0.taken, cafe: cafe) }) else {
            throw ServiceError(.windowFull, "\(cafe.name) has no pickup window with room in the next \(upcoming.count) windows")
        }
        return next.start
    }

    /// A new place held in the window at `start` for `holdSeconds`.
    public static func hold(id: String, cafe: Cafe, start: Timestamp, userId: String?, now: Timestamp, holdSeconds: Double) -> ReservationRecord {
        ReservationRecord(reservationId: id, cafeId: cafe.id, windowStart: start, userId: userId, status: .held, expiresAt: now.adding(seconds: holdSeconds))
    }

    /// The reservation an order spends: it must exist at this café, still be held, be held for
    /// this user (a place held without a user, by a kiosk or a clip, is anyone's who has its id),
    /// and not have expired.
    public static func spend(_ reservation: ReservationRecord?, id: String, cafe: Cafe, userId: String?,
                             now: Timestamp) throws(ServiceError) -> ReservationRecord {
        guard let reservation, reservation.cafeId == cafe.id else {
            throw ServiceError(.unknownReservation, "no reservation \(id.prefix(60)) at \(cafe.name)")
        }
        guard reservation.status == .held else {
            throw ServiceError(.unknownReservation, "reservation \(id) was already used or released")
        }
        if let holder = reservation.userId, holder != userId {
            throw ServiceError(.notOrderOwner, "reservation \(id) is held for another user")
        }
        guard reservation.expiresAt > now else {
            throw ServiceError(.reservationExpired, "reservation \(id) expired; reserve the window again")
        }
        return reservation
    }
}
