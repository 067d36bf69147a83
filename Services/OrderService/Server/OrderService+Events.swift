import Foundation
import Messages
import OrderCore
import ServiceRuntime

extension OrderService {
    /// Region and kitchen events, applied inside the follower's transaction with its cursor.
    func consume(_ envelope: Envelope) throws {
        switch envelope.body {
        case .nearest(let nearest):
            if let beacon = nearest.beacon {
                try store.setNearest(deviceId: nearest.deviceId, beacon: beacon, at: nearest.date)
            } else {
                try store.clearNearest(deviceId: nearest.deviceId)
            }
        case .purged(let purged):
            // Location authorization withdrawn: drop what we derived from the device's location.
            try store.clearNearest(deviceId: purged.deviceId)
            try store.clearAway(deviceId: purged.deviceId)
        case .region(let event):
            // Whether the phone is known outside a café's approach area, for the orders it places there.
            if let decision = OrderCustomerEvents.approachDecision(event) {
                try store.setAway(deviceId: event.deviceId, cafeId: decision.cafeId, at: decision.outside ? event.date : nil)
            }
            // A customer entering the café of one of their open orders: the kitchen sees "customer here".
            if let cafeId = OrderCustomerEvents.arrivalCafe(event) {
                let orders = try store.openOrders(deviceId: event.deviceId, cafeId: cafeId)
                for effects in OrderCustomerEvents.arrival(event, orders: orders, now: now) { try apply(effects) }
            } else if let cafeId = OrderCustomerEvents.approachCafe(event), let approach = catalog.cafe(cafeId)?.approach {
                // On the way: the kitchen paces the order by when the customer will be at the counter.
                let orders = try store.openOrders(deviceId: event.deviceId, cafeId: cafeId)
                for effects in OrderCustomerEvents.approach(event, orders: orders, walkSeconds: approach.walkSeconds, now: now) { try apply(effects) }
            }
        case .paced:
            break  // the kitchen's own timing: nothing changes at order-service
        case .kitchen(let event):
            if let effects = try OrderProgress.kitchen(envelope.type, event, order: try store.order(event.orderId), now: now) {
                try apply(effects)
            }
        default:
            throw ServiceError(.unknownType, "order-service does not consume \(envelope.type.rawValue)")
        }
    }
}
