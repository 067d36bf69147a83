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
                try db.run("INSERT INTO device_nearest (device_id, major, minor, at_ms) VALUES (?, ?, ?, ?) ON CONFLICT(device_id) DO UPDATE SET major = excluded.major, minor = excluded.minor, at_ms = excluded.at_ms",
                           nearest.deviceId, beacon.major, beacon.minor, nearest.date.milliseconds)
            } else {
                try db.run("DELETE FROM device_nearest WHERE device_id = ?", nearest.deviceId)
            }
        case .purged(let purged):
            // Location authorization withdrawn: drop what we derived from the device's location.
            try db.run("DELETE FROM device_nearest WHERE device_id = ?", purged.deviceId)
        case .region(let event):
            try arrival(event)
        case .kitchen(let event):
            try kitchen(envelope.type, event)
        default:
            throw ServiceError(.unknownType, "order-service does not consume \(envelope.type.rawValue)")
        }
    }

    /// A customer entering the café of one of their open orders: the kitchen sees "customer here".
    /// Only the campus monitor's beacon conditions (identifier = café id) count: its `<id>.area`
    /// circles are far wider than a café, and another monitor's identifiers mean what its owner says.
    private func arrival(_ event: RegionEvent) throws {
        guard event.state == .satisfied, event.monitor == "campus" else { return }
        let rows = try db.query("SELECT snapshot FROM orders WHERE device_id = ? AND cafe_id = ? AND state IN ('placed','accepted','preparing','ready')",
                                event.deviceId, event.identifier)
        for row in rows {
            var order = try JSONDecoder().decode(OrderSnapshot.self, from: Data(row.string("snapshot").utf8))
            guard !order.customerHere else { continue }
            order.customerHere = true
            try db.run("UPDATE orders SET snapshot = ?, updated_ms = ? WHERE order_id = ?", Self.json(order), now.milliseconds, order.orderId)
            try host.emit(.orderArrived, topic: Topic.order(state: "arrived", cafe: order.cafeId), stream: "order",
                          .order(OrderEvent(order: order, previous: order.state, reason: "customer entered \(order.cafeName)", at: event.date)))
        }
    }

    private func kitchen(_ type: EventType, _ event: KitchenEvent) throws {
        guard var order = try loadOrder(event.orderId) else {
            throw ServiceError(.unknownOrder, "kitchen event for unknown order \(event.orderId)")
        }
        switch type {
        case .kitchenStarted:
            if order.state == .accepted { try transition(order, to: .preparing, actor: .kitchen, reason: "started at \(event.station ?? "kitchen")") }
        case .kitchenReady:
            for step in OrderLifecycle.pathToReady(from: order.state) {
                order = try transition(order, to: step, actor: .kitchen, reason: step == .ready ? "every station bumped" : "bumped")
            }
        case .kitchenBumped, .kitchenRecalled:
            break
        default:
            throw ServiceError(.unknownType, "order-service does not consume \(type.rawValue)")
        }
    }
}
