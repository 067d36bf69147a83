import Foundation
import Messages
import OrderCore
import SQLite

/// All of order-service's SQL: its schema, and every read and write of orders, their audit
/// trail and idempotency keys (reservations and what is known of customers are in extensions).
/// Rows become records here and nowhere else. Writes run inside the caller's transaction
/// (`ServiceHost.write`), so a decision's rows and events commit together.
final class OrderStore {
    /// The states of an order still to be collected or cancelled.
    static let openStates = "('placed','accepted','preparing','ready')"

    let db: Database

    init(db: Database) {
        self.db = db
    }

    /// Brings the file to the current schema.
    func migrate() throws {
        try db.migrate("order-service", Self.migrations)
    }

    // MARK: Orders

    func order(_ orderId: String) throws -> OrderSnapshot? {
        try db.query("SELECT snapshot FROM orders WHERE order_id = ?", orderId).first.map(Self.order)
    }

    /// The device's orders at the café that are still open, for "customer here".
    func openOrders(deviceId: String, cafeId: String) throws -> [OrderSnapshot] {
        try db.query("SELECT snapshot FROM orders WHERE device_id = ? AND cafe_id = ? AND state IN \(Self.openStates)", deviceId, cafeId).map(Self.order)
    }

    /// Every order still to be made and not yet escalated, for the overdue check.
    func unfinishedOrders(windowEndedBefore end: Timestamp) throws -> [OrderSnapshot] {
        try db.query("SELECT snapshot FROM orders WHERE state IN ('placed','accepted','preparing') AND json_extract(snapshot, '$.pickupEnd') < ?"
                     + " AND json_extract(snapshot, '$.overdueAt') IS NULL",
                     end.rfc3339).map(Self.order)
    }

    /// The ready orders whose window ended before `end`, for the no-show timer. A grace is never
    /// negative, so no order before its window's end can be due; the filter is SQLite's (RFC 3339
    /// at a fixed width sorts as time does), so the timer decodes only the orders it may act on,
    /// not every ready order a day of uncollected orders leaves (1,300 of them held order-service's
    /// reactor for up to 98 ms every 30 s).
    func readyOrders(windowEndedBefore end: Timestamp) throws -> [OrderSnapshot] {
        try db.query("SELECT snapshot FROM orders WHERE state = 'ready' AND json_extract(snapshot, '$.pickupEnd') < ?", end.rfc3339).map(Self.order)
    }

    /// The device's orders that belong to no account, oldest first, for a claim.
    func guestOrders(deviceId: String) throws -> [OrderSnapshot] {
        try db.query("SELECT snapshot FROM orders WHERE device_id = ? AND user_id IS NULL ORDER BY created_ms", deviceId).map(Self.order)
    }

    /// How many orders are open, for health; nil when the file cannot be read.
    func openOrderCount() -> Int? {
        try? db.query("SELECT COUNT(*) AS n FROM orders WHERE state IN \(Self.openStates)").first?.int("n")
    }

    /// Writes what a decision did: the order (inserted when new, with its payment token, and its
    /// reservation marked used; updated otherwise), a released reservation, the audit rows and the
    /// user's last café. The events are the caller's to emit in the same transaction; `snapshot` is
    /// the order's JSON as the last of them carried it (nil: encoded here).
    func save(_ effects: OrderEffects, snapshot: Data? = nil) throws {
        let order = effects.order
        let json = snapshot.map { String(decoding: $0, as: UTF8.self) } ?? Self.json(order)
        if let placement = effects.placement {
            try db.run("INSERT INTO orders (order_id, cafe_id, user_id, device_id, state, snapshot, payment_token, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       order.orderId, order.cafeId, order.userId, order.deviceId, order.state.rawValue, json, placement.paymentToken,
                       effects.at.milliseconds, effects.at.milliseconds)
            try db.run("UPDATE reservations SET status = 'used', order_id = ? WHERE reservation_id = ?", order.orderId, placement.reservationId)
        } else {
            try db.run("UPDATE orders SET user_id = ?, state = ?, snapshot = ?, updated_ms = ? WHERE order_id = ?",
                       order.userId, order.state.rawValue, json, effects.at.milliseconds, order.orderId)
        }
        if effects.releasesReservation {
            try db.run("UPDATE reservations SET status = 'released' WHERE order_id = ?", order.orderId)
        }
        for row in effects.audit {
            // Numbered within its order (the table is keyed by order and number, see migration 3).
            try db.run("""
                INSERT INTO order_audit (order_id, id, from_state, to_state, actor, reason, at_ms)
                VALUES (?, (SELECT COALESCE(MAX(id), 0) + 1 FROM order_audit WHERE order_id = ?), ?, ?, ?, ?, ?)
                """, row.orderId, row.orderId, row.from?.rawValue, row.to.rawValue, row.actor.rawValue, row.reason, row.at.milliseconds)
        }
        if let last = effects.lastCafe { try remember(last) }
    }

    /// The audit rows of one order, oldest first; `current` stands in for a state this build cannot read.
    func history(_ orderId: String, current: OrderState) throws -> [AuditEntry] {
        try db.query("SELECT from_state, to_state, actor, reason, at_ms FROM order_audit WHERE order_id = ? ORDER BY id", orderId).map { row in
            AuditEntry(from: row.optionalString("from_state").flatMap(OrderState.init(rawValue:)),
                       to: OrderState(rawValue: row.string("to_state")) ?? current,
                       actor: row.string("actor"), reason: row.optionalString("reason"), at: Timestamp(milliseconds: row.int64("at_ms")))
        }
    }

    // MARK: Idempotency keys

    func idempotency(_ key: String) throws -> IdempotencyRecord? {
        try db.query("SELECT request, reply, created_ms FROM idempotency WHERE key = ?", key).first.map { row in
            IdempotencyRecord(key: key, request: row.string("request"), reply: row.data("reply"), createdAt: Timestamp(milliseconds: row.int64("created_ms")))
        }
    }

    func insert(_ record: IdempotencyRecord) throws {
        try db.run("INSERT INTO idempotency (key, request, reply, created_ms) VALUES (?, ?, ?, ?)",
                   record.key, record.request, record.reply, record.createdAt.milliseconds)
    }

    // MARK: Rows to records

    /// An order row's snapshot (the row's other columns are indexes of it).
    static func order(_ row: Row) throws -> OrderSnapshot {
        try Wire.decodeStored(OrderSnapshot.self, from: Data(row.string("snapshot").utf8))
    }

    static func json<T: Encodable>(_ value: T) -> String { String(decoding: Wire.encode(value), as: UTF8.self) }
}
