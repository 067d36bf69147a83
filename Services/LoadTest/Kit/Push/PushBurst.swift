import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// notification-service alone: `order.ready` events played onto the bus at once, as order-service
/// would publish them (as an instance of its own, `order-service-push-player`: in plain mode only
/// order-service's instances may publish order events), for the run's registered phones in turn.
/// Per event: its publish time and when the peer accepted its push. What it measures is how fast
/// notification-service turns events into accepted pushes, with nothing upstream.
struct PushBurst {
    /// Seconds from publishing each event to the peer's 200, and the accepted pushes per second
    /// from the first to the last.
    struct Outcome {
        var count: Int
        var latencies: [Double]
        var perSecond: Double
    }

    let count: Int
    let cafeId: String

    func run(devices: [String], busPub: String, notify: RequestClient, context: Context, record: URL, timeout: Double) throws -> Outcome {
        let publisher = try Socket(context, .pub)
        defer { publisher.close() }
        try publisher.setLinger(milliseconds: 0)
        try publisher.connect(busPub)
        var seq: UInt64 = 1
        func publish(_ orderId: String, device: String) throws {
            let now = Timestamp(Date())
            let start = now.adding(seconds: 600)
            let snapshot = OrderSnapshot(orderId: orderId, cafeId: cafeId, cafeName: cafeId, timeZone: "America/Los_Angeles", currency: "USD", channel: .app,
                                         userId: nil, deviceId: device, state: .ready, lines: [], total: 0, pickupStart: start, pickupEnd: start.adding(seconds: 900),
                                         placedAt: now, customerHere: false, noShowAt: start.adding(seconds: 1_800))
            let envelope = Envelope(type: .orderReady, id: "evt-\(orderId)-ready", source: "order-service-push-player", stream: "order", seq: seq, time: now,
                                    body: .order(OrderEvent(order: snapshot, previous: .preparing, reason: nil, at: now)))
            try publisher.send(multipart: [Data(Topic.order(state: "ready", cafe: cafeId).utf8), Wire.encode(envelope)])
        }
        // Until the bus has passed notification-service's subscription up to this publisher, what
        // it sends is dropped: seq 1 (for a device nobody registered) until it is applied.
        let warmUp = Date().addingTimeInterval(10)
        while (try? notify.call(Op.health, Empty(), as: HealthStatus.self))?.details["cursor.order-service-push-player/order"] != "1" {
            guard Date() < warmUp else { throw ServiceError(.internalError, "notification-service never applied the burst's first event") }
            try publish("ord-burst-warm-up", device: "nobody")
            usleep(50_000)
        }
        var sentAt: [String: Double] = [:]
        for index in 0..<count {
            seq += 1
            let orderId = "ord-burst-\(index)"
            sentAt[orderId] = Date().timeIntervalSince1970
            try publish(orderId, device: devices[index % devices.count])
        }
        var accepted: [String: Double] = [:]
        let deadline = Date().addingTimeInterval(timeout)
        while accepted.count < count, Date() < deadline {
            usleep(200_000)
            guard let text = try? String(contentsOf: record, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") where line.contains("ord-burst-") {
                guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], entry["status"] as? Int == 200,
                      let orderId = (entry["payload"] as? [String: Any])?["orderId"] as? String, sentAt[orderId] != nil, accepted[orderId] == nil,
                      let t = entry["t"] as? Double else { continue }
                accepted[orderId] = t
            }
        }
        let times = accepted.values.sorted()
        let span = (times.last ?? 0) - (times.first ?? 0)
        return Outcome(count: count, latencies: accepted.map { $0.value - sentAt[$0.key]! },
                       perSecond: times.count > 1 && span > 0 ? Double(times.count - 1) / span : 0)
    }
}
