import Foundation
import Messages
import SQLite

extension KitchenStore {
    /// Deletes up to `limit` tickets closed before `cutoff`, oldest first, in a transaction of
    /// their own (through the `tickets_closed` index); returns how many. Open tickets have no
    /// `closed_ms` and are never deleted.
    func pruneClosedTickets(before cutoff: Timestamp, limit: Int) throws -> Int {
        try db.transaction {
            try db.run("""
                DELETE FROM tickets WHERE ticket_id IN
                  (SELECT ticket_id FROM tickets WHERE closed_ms IS NOT NULL AND closed_ms < ? ORDER BY closed_ms LIMIT ?)
                """, cutoff.milliseconds, limit)
            return db.changes
        }
    }
}
