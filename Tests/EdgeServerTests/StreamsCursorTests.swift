import EdgeCore
@testable import EdgeServer
import Foundation
import Messages
import Policy
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// The streams' bus consumer and `open`, on a real SQLite file: the journal moves with the cursor,
/// a restart resumes without losing or repeating an event, a client resumes after its
/// Last-Event-ID, and whoever may not see a stream is refused before it is held.
@Suite("streams: cursor, journal, resuming and refusals")
struct StreamsCursorTests {
    @Test("events journalled with the cursor; after a restart the replayed ones are not journalled or published again")
    func restartResumes() throws {
        let harness = try StreamsHarness()
        for (seq, state) in [(UInt64(1), OrderState.placed), (2, .accepted), (3, .preparing)] {
            let (envelope, topic) = StreamsHarness.orderEvent(seq == 1 ? .orderPlaced : seq == 2 ? .orderAccepted : .orderPreparing, seq: seq, state: state)
            #expect(try harness.deliver(envelope, topic: topic) == .applied)
        }
        #expect(harness.host.bus.cursor(source: "order-service", stream: "order") == 3)
        try harness.restart()
        #expect(harness.host.bus.cursor(source: "order-service", stream: "order") == 3, "the cursor survived")
        // The publisher's replay after the restart sends 2 and 3 again, then the new 4.
        for seq in [UInt64(2), 3] {
            let (envelope, topic) = StreamsHarness.orderEvent(.orderAccepted, seq: seq, state: .accepted)
            #expect(try harness.deliver(envelope, topic: topic) == .duplicate)
        }
        #expect(harness.streams.pending.isEmpty)
        let (ready, topic) = StreamsHarness.orderEvent(.orderReady, seq: 4, state: .ready)
        #expect(try harness.deliver(ready, topic: topic) == .applied)
        // Each on its order's channel and on its café's (the screens', issue 29).
        #expect(try harness.streams.journal.count() == 8)
        let response = harness.open(.orderEvents, ["orderId": "ord-1"])
        #expect(response.status == 200)
        #expect(StreamsHarness.ids(response.body) == ["1", "2", "3", "4"], "every event once, in order")
    }

    @Test("Last-Event-ID: the stream starts after it; the newest id gives an empty body; another order's events never appear")
    func resumes() throws {
        let harness = try StreamsHarness()
        try harness.deliver(StreamsHarness.orderEvent(.orderPlaced, seq: 1, state: .placed).0, topic: "order.placed.caffe-macs.")
        try harness.deliver(StreamsHarness.orderEvent(.orderPlaced, seq: 2, orderId: "ord-2", state: .placed).0, topic: "order.placed.caffe-macs.")
        try harness.deliver(StreamsHarness.orderEvent(.orderReady, seq: 3, state: .ready).0, topic: "order.ready.caffe-macs.")
        #expect(StreamsHarness.ids(harness.open(.orderEvents, ["orderId": "ord-1"], lastEventId: "1").body) == ["3"])
        #expect(StreamsHarness.ids(harness.open(.orderEvents, ["orderId": "ord-1"], lastEventId: "3").body) == [])
        #expect(StreamsHarness.ids(harness.open(.orderEvents, ["orderId": "ord-2"]).body) == ["2"])
        let (op, body, principal) = try #require(harness.service.asked.last)
        #expect(op == Op.orderGet && body == #"{"orderId":"ord-2"}"# && principal == StreamsHarness.alice, "order.get on behalf of the caller")
    }

    @Test("the order's stream is refused with what order.get answers; nothing is held")
    func orderRefused() throws {
        let harness = try StreamsHarness()
        let forbidden = Problem(.forbidden, "kiosk-macs may not read order ord-1").response
        harness.service.answer = forbidden
        let kiosk = OnBehalfOf.counter("kiosk", "kiosk-macs", cafeId: "caffe-macs")
        let response = harness.open(.orderEvents, ["orderId": "ord-1"], as: kiosk)
        #expect(response == forbidden)
        #expect(!response.headers.contains { $0.0 == "Grip-Hold" })
        harness.service.answer = Problem(.unknownOrder, "no order ord-9").response
        #expect(harness.open(.orderEvents, ["orderId": "ord-9"]).status == 404)
    }

    @Test("a device's stream: the phone's own device only, never asking a service; a bad Last-Event-ID is 422")
    func deviceStream() throws {
        let harness = try StreamsHarness()
        try harness.deliver(StreamsHarness.delivery(seq: 1, device: "dev-9f3b").0, topic: "notify.delivery.dev-9f3b.")
        try harness.deliver(StreamsHarness.delivery(seq: 2, device: "dev-other").0, topic: "notify.delivery.dev-other.")
        let own = harness.open(.deviceEvents, ["deviceId": "dev-9f3b"])
        #expect(own.status == 200 && StreamsHarness.ids(own.body) == ["1"])
        #expect(HTTPHeaders(own.headers)["Grip-Channel"] == "device:dev-9f3b")
        #expect(harness.open(.deviceEvents, ["deviceId": "dev-other"]).status == 403)
        let kitchen = OnBehalfOf.counter("kitchen", "kitchen-macs", cafeId: "caffe-macs")
        #expect(harness.open(.deviceEvents, ["deviceId": "dev-9f3b"], as: kitchen).status == 403)
        #expect(harness.service.asked.isEmpty)
        #expect(harness.open(.deviceEvents, ["deviceId": "dev-9f3b"], lastEventId: "-1").status == 422)
        #expect(harness.open(.orderEvents, ["orderId": "ord-1"], lastEventId: "x").status == 422)
        #expect(harness.service.asked.isEmpty, "refused before order.get is asked")
    }

    @Test("what is published after the commit reaches Pushpin's PULL socket: one item per event, in order, with its id")
    func published() throws {
        let port = try LoopbackPorts.free(1)[0]
        let context = try Context()
        let pull = try Socket(context, .pull)
        defer { pull.close() }
        try pull.bind("tcp://127.0.0.1:\(port)")
        let harness = try StreamsHarness(publishEndpoint: "tcp://127.0.0.1:\(port)")
        try harness.deliver(StreamsHarness.orderEvent(.orderPlaced, seq: 1, state: .placed).0, topic: "order.placed.caffe-macs.")
        try harness.deliver(StreamsHarness.orderEvent(.orderPlaced, seq: 1, state: .placed).0, topic: "order.placed.caffe-macs.")
        try harness.deliver(StreamsHarness.delivery(seq: 1, device: "dev-9f3b").0, topic: "notify.delivery.dev-9f3b.")
        var items: [[String: Any]] = []
        while items.count < 3, let frames = try pull.receiveMultipart(timeoutMilliseconds: 5_000) {
            #expect(frames.count == 1 && frames[0].first == UInt8(ascii: "J"))
            items.append(try #require(JSONSerialization.jsonObject(with: frames[0].dropFirst()) as? [String: Any]))
        }
        // The order event goes to its café's channel (the screens') too, with that channel's own count.
        #expect(items.map { $0["channel"] as? String } == ["cafe:caffe-macs", "order:ord-1", "device:dev-9f3b"])
        #expect(items.map { $0["id"] as? String } == ["1", "1", "1"], "each stream's own seq, and the café channel's count")
        #expect(try pull.receiveMultipart(timeoutMilliseconds: 200) == nil, "the duplicate was not published")
    }

    @Test("the journal keeps the configured history: older events are pruned")
    func prune() throws {
        let harness = try StreamsHarness()
        try harness.deliver(StreamsHarness.orderEvent(.orderPlaced, seq: 1, state: .placed).0, topic: "order.placed.caffe-macs.")
        harness.clock.advance(seconds: 23 * 3600)
        try harness.deliver(StreamsHarness.orderEvent(.orderReady, seq: 2, state: .ready).0, topic: "order.ready.caffe-macs.")
        harness.clock.advance(seconds: 2 * 3600)
        try harness.streams.prune()
        #expect(StreamsHarness.ids(harness.open(.orderEvents, ["orderId": "ord-1"]).body) == ["2"])
    }

    @Test("health counts what the streams did: journalled, published, opened and refused")
    func health() throws {
        let harness = try StreamsHarness()
        try harness.deliver(StreamsHarness.orderEvent(.orderPlaced, seq: 1, state: .placed).0, topic: "order.placed.caffe-macs.")
        _ = harness.open(.orderEvents, ["orderId": "ord-1"])
        _ = harness.open(.deviceEvents, ["deviceId": "someone-else"])
        let reply = harness.host.requests.router.handle(Data(#"{"op":"health","id":"h1","body":{}}"#.utf8))
        let details = try requireValue(Wire.decodeReply(reply, body: HealthStatus.self).body).details
        // Journalled twice: on the order's channel and on its café's.
        #expect(details["streams.journalled"] == "2" && details["streams.opened"] == "1" && details["streams.refused"] == "1")
        #expect(details["streams.publishEndpoint"] == harness.publishEndpoint && details["cursor.order-service/order"] == "1")
    }
}
