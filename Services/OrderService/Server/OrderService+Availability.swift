import Campus
import Foundation
import Messages
import OrderCore
import Policy
import ServiceRuntime

/// `menu.availability.set`: an item 86'd (sold out) at a café, or back on; stored and announced
/// on `menu.availability.<cafe>.` in one transaction.
extension OrderService {
    func setAvailability(_ request: MenuAvailabilityRequest, as caller: Caller) throws -> MenuAvailability {
        let cafeId = try MenuAvailabilityRules.cafeId(of: request, caller: caller)
        let cafe = try RequestRules.cafe(cafeId, in: catalog)
        try MenuAvailabilityRules.check(request, cafe: cafe)
        return try events.write {
            let current = try store.availability(cafeId: cafe.id, itemId: request.itemId)
            guard let changed = MenuAvailabilityRules.change(request, cafeId: cafe.id, current: current, by: caller.name, now: now) else {
                // Already so: nothing to store or announce.
                return current ?? MenuAvailability(cafeId: cafe.id, itemId: request.itemId, available: true, reason: nil, by: caller.name, at: now)
            }
            try store.setAvailability(changed)
            try events.emit(.menuAvailability, topic: Topic.menuAvailability(cafe: cafe.id), stream: "menu", .availability(changed))
            logger.info(changed.available ? "item back on the menu" : "item 86'd",
                             ["cafe.id": cafe.id, "item.id": changed.itemId, "by": changed.by, "reason": changed.reason ?? ""])
            return changed
        }
    }
}
