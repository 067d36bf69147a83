import Campus
import Foundation
import Messages
import OrderCore
import Policy
import ServiceRuntime

/// `windows.list` and `window.reserve`: pickup windows with the places left in them, and a place
/// held in one for a while. A kiosk sees and holds places only at its café (`OrderScope`).
extension OrderService {
    func windows(_ request: WindowsRequest, as caller: Caller) throws -> WindowsReply {
        try caller.requireCafe(request.cafeId, "list pickup windows")
        let cafe = try RequestRules.cafe(request.cafeId, in: catalog)
        try RequestRules.validateLocale(request.locale)
        let count = try ReservationRules.windowCount(request.count)
        let at = now
        let starts = PickupCalendar(cafe: cafe).windows(after: at, count: count)
        let taken = try store.taken(cafeId: cafe.id, starts: starts, now: at)
        return WindowsReply(cafeId: cafe.id, windows: zip(starts, taken).map { windowView(cafe, start: $0, taken: $1, locale: request.locale) })
    }

    func reserve(_ request: ReserveRequest, as caller: Caller) throws -> ReservationView {
        let request = try OrderScope.reservation(request, caller: caller)
        let cafe = try RequestRules.cafe(request.cafeId, in: catalog)
        try RequestRules.validateLocale(request.locale)
        if let userId = request.userId { try RequestRules.validateID(userId, field: "userId") }
        if let start = request.start { try ReservationRules.checkStart(start, cafe: cafe, now: now) }
        return try events.write {
            // Count and insert in one IMMEDIATE transaction: two clients racing for the last place cannot both win.
            let at = now
            let start: Timestamp
            if let requested = request.start {
                start = requested
                let taken = try store.taken(cafeId: cafe.id, start: start, now: at)
                guard ReservationRules.hasRoom(taken: taken, cafe: cafe) else {
                    let later = ReservationRules.laterWindows(after: start, cafe: cafe)
                    let laterTaken = try store.taken(cafeId: cafe.id, starts: later, now: at)
                    throw ReservationRules.full(start, cafe: cafe, later: Array(zip(later, laterTaken)), locale: request.locale, times: times)
                }
            } else {
                let upcoming = ReservationRules.laterWindows(after: at, cafe: cafe)
                start = try ReservationRules.nextWithRoom(Array(zip(upcoming, try store.taken(cafeId: cafe.id, starts: upcoming, now: at))), cafe: cafe)
            }
            let reservation = ReservationRules.hold(id: "res_" + UUID().uuidString.lowercased(), cafe: cafe, start: start,
                                                    userId: request.userId, now: at, holdSeconds: holdSeconds)
            try store.insert(reservation)
            let takenNow = try store.taken(cafeId: cafe.id, start: start, now: now)
            return ReservationView(reservationId: reservation.reservationId, cafeId: cafe.id,
                                   window: windowView(cafe, start: start, taken: takenNow, locale: request.locale),
                                   expiresAt: reservation.expiresAt)
        }
    }

    /// A window as a user sees it: its local time in their locale and the places left.
    func windowView(_ cafe: Cafe, start: Timestamp, taken: Int, locale: String) -> WindowView {
        WindowView(start: start, end: start.adding(seconds: PickupCalendar(cafe: cafe).windowSeconds),
                   label: times.format(start, timeZone: cafe.timeZone, locale: locale),
                   capacity: cafe.pickup.capacity, remaining: max(0, cafe.pickup.capacity - taken))
    }
}
