import Foundation
import Messages
import OrderCore
import SQLite

/// What order-service deletes once it has outlived its retention, each in batches of at most
/// `limit` rows in a transaction of its own (see `OrderService+Retention`).
extension OrderStore {
    /// Forgets up to `limit` idempotency keys created before `cutoff`; returns how many.
    func pruneIdempotency(before cutoff: Timestamp, limit: Int) throws -> Int {
        try db.transaction {
            try db.run("DELETE FROM idempotency WHERE key IN (SELECT key FROM idempotency WHERE created_ms < ? ORDER BY created_ms LIMIT ?)",
                       cutoff.milliseconds, limit)
            return db.changes
        }
    }

    /// Deletes up to `limit` orders that ended (picked up, cancelled, no-show) before `cutoff`,
    /// with their audit rows; returns how many orders.
    func pruneFinishedOrders(before cutoff: Timestamp, limit: Int) throws -> Int {
        try db.transaction {
            var ids: [String] = []
            for state in [OrderState.pickedUp, .cancelled, .noShow] where ids.count < limit {
                ids += try db.query("SELECT order_id FROM orders WHERE state = ? AND updated_ms < ? ORDER BY updated_ms LIMIT ?",
                                    state.rawValue, cutoff.milliseconds, limit - ids.count).map { $0.string("order_id") }
            }
            for id in ids {
                try db.run("DELETE FROM order_audit WHERE order_id = ?", id)
                try db.run("DELETE FROM orders WHERE order_id = ?", id)
            }
            return ids.count
        }
    }

    /// Deletes up to `limit` reservations of `cafeId` for windows that started before `cutoff`; returns how many.
    func prunePastReservations(cafeId: String, before cutoff: Timestamp, limit: Int) throws -> Int {
        try db.transaction {
            try db.run("""
                DELETE FROM reservations WHERE reservation_id IN
                  (SELECT reservation_id FROM reservations WHERE cafe_id = ? AND window_start_ms < ? LIMIT ?)
                """, cafeId, cutoff.milliseconds, limit)
            return db.changes
        }
    }
}
