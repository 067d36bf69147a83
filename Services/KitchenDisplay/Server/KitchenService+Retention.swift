import Foundation
import ServiceRuntime

/// kitchen-display's retention: closed tickets are deleted `--ticket-retention-days` after they
/// closed, a batch at a time through the host's `Pruner` (the screen and `kds.*` show open tickets
/// and those closed in the last minutes; the order's history stays at order-service).
extension KitchenService {
    /// Adds the tickets table to `pruner`.
    public func addRetention(to pruner: Pruner, ticketRetentionDays: Int) {
        pruner.add("tickets") { [unowned self] limit in
            try store.pruneClosedTickets(before: clock.now().adding(seconds: -Double(ticketRetentionDays) * 86_400), limit: limit)
        }
    }
}
