import Messages
import OrderCore
import SQLite

/// Places held in pickup windows.
extension OrderStore {
    func reservation(_ id: String) throws -> ReservationRecord? {
        try db.query("SELECT * FROM reservations WHERE reservation_id = ?", id).first.map(Self.reservation)
    }

    func insert(_ reservation: ReservationRecord) throws {
        try db.run("INSERT INTO reservations (reservation_id, cafe_id, window_start_ms, user_id, status, expires_ms) VALUES (?, ?, ?, ?, ?, ?)",
                   reservation.reservationId, reservation.cafeId, reservation.windowStart.milliseconds, reservation.userId,
                   reservation.status.rawValue, reservation.expiresAt.milliseconds)
    }

    /// Places taken in a window at `now`: used by an order, or held and not expired.
    func taken(cafeId: String, start: Timestamp, now: Timestamp) throws -> Int {
        try db.query("SELECT COUNT(*) AS n FROM reservations WHERE cafe_id = ? AND window_start_ms = ? AND (status = 'used' OR (status = 'held' AND expires_ms > ?))",
                     cafeId, start.milliseconds, now.milliseconds).first?.int("n") ?? 0
    }

    /// Places taken in each of `starts` (ascending) at `now`, in one read.
    func taken(cafeId: String, starts: [Timestamp], now: Timestamp) throws -> [Int] {
        guard let first = starts.first, let last = starts.last else { return [] }
        let rows = try db.query("""
            SELECT window_start_ms AS s, COUNT(*) AS n FROM reservations WHERE cafe_id = ? AND window_start_ms BETWEEN ? AND ?
                AND (status = 'used' OR (status = 'held' AND expires_ms > ?)) GROUP BY window_start_ms
            """, cafeId, first.milliseconds, last.milliseconds, now.milliseconds)
        let counts = Dictionary(rows.map { ($0.int64("s"), $0.int("n")) }, uniquingKeysWith: +)
        return starts.map { counts[$0.milliseconds] ?? 0 }
    }

    static func reservation(_ row: Row) -> ReservationRecord {
        ReservationRecord(reservationId: row.string("reservation_id"), cafeId: row.string("cafe_id"),
                          windowStart: Timestamp(milliseconds: row.int64("window_start_ms")), userId: row.optionalString("user_id"),
                          // The schema's CHECK allows only the three statuses.
                          status: ReservationRecord.Status(rawValue: row.string("status")) ?? .released,
                          expiresAt: Timestamp(milliseconds: row.int64("expires_ms")), orderId: row.optionalString("order_id"))
    }
}
