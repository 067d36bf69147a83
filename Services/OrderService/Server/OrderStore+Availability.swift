import Foundation
import Messages
import SQLite

/// Items marked unavailable ("86'd") per café: one row per café and item that was ever changed.
extension OrderStore {
    /// The availability last set for an item at a café; nil when never changed (available).
    func availability(cafeId: String, itemId: String) throws -> MenuAvailability? {
        try db.query("SELECT * FROM menu_availability WHERE cafe_id = ? AND item_id = ?", cafeId, itemId).first.map(Self.availability)
    }

    /// The ids of the items unavailable at a café now.
    func unavailableItems(cafeId: String) throws -> Set<String> {
        Set(try db.query("SELECT item_id FROM menu_availability WHERE cafe_id = ? AND available = 0", cafeId).map { $0.string("item_id") })
    }

    /// Stores an item's availability (inside the caller's transaction).
    func setAvailability(_ availability: MenuAvailability) throws {
        try db.run("""
            INSERT INTO menu_availability (cafe_id, item_id, available, reason, by, at_ms) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(cafe_id, item_id) DO UPDATE SET available = excluded.available, reason = excluded.reason, by = excluded.by, at_ms = excluded.at_ms
            """, availability.cafeId, availability.itemId, availability.available, availability.reason, availability.by, availability.at.milliseconds)
    }

    static func availability(_ row: Row) -> MenuAvailability {
        MenuAvailability(cafeId: row.string("cafe_id"), itemId: row.string("item_id"), available: row.bool("available"),
                         reason: row.optionalString("reason"), by: row.string("by"), at: Timestamp(milliseconds: row.int64("at_ms")))
    }
}
