import Foundation
import Messages
import ServiceRuntime
import Testing

/// The lag figures a consumer's health gives a scraper: events a publisher announced and not yet
/// applied, how long it has been behind, and how long since each publisher was heard.
@Suite("Stream lag figures")
struct StreamLagFiguresTests {
    @Test("a heartbeat ahead of the cursor is lag in events and seconds; applying up to it is no lag; the publisher's heartbeat age is there")
    func lagFromHeartbeat() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        // No replay endpoint answers: the catch-up fails and the stream stays behind.
        let heartbeat = Envelope(type: .heartbeat, source: "order-service", stream: "heartbeat", seq: 1, time: Samples.time,
                                 body: .heartbeat(Heartbeat(service: "order-service", streams: ["order": 3], replayEndpoint: "inproc://nobody-\(UUID())")))
        follower.receive(topic: Topic.heartbeat(source: "order-service"), envelope: heartbeat, raw: Wire.encode(heartbeat))
        var details = follower.lagDetails
        #expect(details["lag.order-service/order.events"] == "3")
        #expect(Double(details["lag.order-service/order.seconds"] ?? "").map { $0 >= 0 } == true)
        #expect(Double(details["heartbeat.order-service.ageSeconds"] ?? "").map { $0 >= 0 && $0 < 60 } == true)
        for seq in 1...3 {
            follower.receive(topic: orderTopic, envelope: orderEvent(UInt64(seq)), raw: Wire.encode(orderEvent(UInt64(seq))))
        }
        details = follower.lagDetails
        #expect(details["lag.order-service/order.events"] == "0" && details["lag.order-service/order.seconds"] == "0.000", "\(details)")
    }
}
