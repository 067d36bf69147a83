import Foundation
import Messages
import ZeroMQ

/// A rig that plays order events onto the bus as order-service would (the APNs and webhook rigs),
/// and waits on notification-service's health.
protocol OrderEventPlayer: AnyObject {
    var publisher: Socket { get }
    var seq: UInt64 { get set }
    var now: Timestamp { get }
    func health() throws -> [String: String]
}

extension OrderEventPlayer {
    /// Publishes `snapshot` as a `type` event on `order.<state>.<cafe>.`, the next seq of the player's stream.
    func play(_ snapshot: OrderSnapshot, type: EventType, state: String) throws {
        let envelope = Envelope(type: type, id: "evt-\(snapshot.orderId)-\(state)", source: "order-service-player", stream: "order", seq: seq, time: now,
                                body: .order(OrderEvent(order: snapshot, previous: nil, reason: nil, at: now)))
        try publisher.send(multipart: [Data(Topic.order(state: state, cafe: snapshot.cafeId).utf8), Wire.encode(envelope)])
        seq += 1
    }

    /// Waits until health's `name` reads `value`.
    @discardableResult
    func await(_ name: String, _ value: String, timeout: Double = 15) throws -> [String: String] {
        try eventually("\(name) = \(value)", timeout: timeout) {
            let details = try health()
            return details[name] == value ? details : nil
        }
    }
}
