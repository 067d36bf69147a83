import Foundation
import Messages
import OrderCore
import ServiceRuntime

/// order-service's retention, pruned by the host's `Pruner` in small batches: idempotency keys
/// after 48 hours (clients are promised 24), reservations 48 hours after their window started
/// (nothing counts a past window), and finished orders with their audit rows after
/// `--order-retention-days` (`order.get`, `order.history` then answer `order.notFound`). Open
/// orders are never pruned.
extension OrderService {
    /// Adds order-service's tables to `pruner` (the host's); `orderRetentionDays` 0 keeps finished orders.
    public func addRetention(to pruner: Pruner, orderRetentionDays: Int) {
        pruner.add("idempotency") { [unowned self] limit in
            try store.pruneIdempotency(before: OrderIdempotency.cutoff(now: now), limit: limit)
        }
        pruner.add("reservations") { [unowned self] limit in
            let cutoff = now.adding(seconds: -OrderIdempotency.retentionSeconds)
            var deleted = 0
            for cafe in catalog.cafes where deleted < limit {
                deleted += try store.prunePastReservations(cafeId: cafe.id, before: cutoff, limit: limit - deleted)
            }
            return deleted
        }
        guard orderRetentionDays > 0 else { return }
        pruner.add("orders") { [unowned self] limit in
            try store.pruneFinishedOrders(before: now.adding(seconds: -Double(orderRetentionDays) * 86_400), limit: limit)
        }
    }
}
