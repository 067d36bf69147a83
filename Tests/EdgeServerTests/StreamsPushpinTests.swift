import EdgeCore
@testable import EdgeServer
import Foundation
import Messages
import Policy
import Testing
import TestSupport
import ZeroMQ

/// The streams through a real Pushpin and real sockets: curl holds an order's stream, Pushpin
/// hands the request over zmq-http to a ROUTER that answers it with `EdgeStreams.open` (the edge
/// server's part, played here by the test), an event the streams' consumer applies reaches the
/// held client through Pushpin's PULL socket, and a client that comes back with Last-Event-ID
/// gets what it missed and nothing twice.
@Suite("streams: held by a real Pushpin", .enabled(if: PushpinProcess.installed), .serialized)
struct StreamsPushpinTests {
    /// Answers the requests Pushpin hands over: waits for one (at most 10 s), then answers any
    /// others already queued (a client stopped before its answer). Each is resolved by the route
    /// table as a phone's and opened by the streams.
    func serve(_ router: Socket, _ harness: StreamsHarness) throws {
        guard var frames = try router.receiveMultipart(timeoutMilliseconds: 10_000) else { throw ServiceErrorForTests("no request from Pushpin") }
        while true {
            let envelope = try #require(ZhttpEnvelope(frames: frames))
            let request = try ZhttpRequest.decode(envelope.frame)
            let call = try EdgeRouter().resolve(request, role: .phone)
            guard case .stream(let action) = call.action else { throw ServiceErrorForTests("not a stream: \(request.uri)") }
            let answer = harness.open(action, call.pathParameters, lastEventId: request.headers["Last-Event-ID"])
            try router.send(multipart: envelope.reply(answer.zhttp(answering: request.id, from: "edge-test")))
            guard let next = try router.tryReceiveMultipart() else { return }
            frames = next
        }
    }

    /// A curl client on `url` whose request the streams answered. Pushpin's proxy reaches its
    /// handler's accept socket a moment after it starts listening, and answers 500 "Accept
    /// service unavailable" meanwhile; such a client, or one that got no answer in 5 s (a loaded
    /// machine), is started again, for at most 20 s.
    func held(_ url: String, headers: [String] = [], _ router: Socket, _ harness: StreamsHarness) throws -> HeldClient {
        let deadline = Date().addingTimeInterval(20)
        while true {
            let client = try HeldClient(url: url, headers: headers)
            try serve(router, harness)
            let answered = client.waitFor("\r\n\r\n", seconds: 5)
            if (answered && !client.text.contains("Accept service unavailable")) || Date() > deadline { return client }
            client.stop()
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    @Test("a held curl client gets the backlog, then an event published through the streams; resuming with Last-Event-ID gets only what it missed")
    func heldAndResumed() throws {
        let pushpin = try StreamsPushpin()
        defer { pushpin.stop() }
        let harness = try StreamsHarness(publishEndpoint: "tcp://127.0.0.1:\(pushpin.pushInPort)")
        let context = try Context()
        let router = try Socket(context, .router)
        defer { router.close() }
        try router.setLinger(milliseconds: 0)
        try router.connect("tcp://127.0.0.1:\(pushpin.zhttpPort)")

        try harness.deliver(StreamsHarness.orderEvent(.orderPlaced, seq: 1, state: .placed).0, topic: "order.placed.caffe-macs.")
        let url = "http://127.0.0.1:\(pushpin.httpPort)/v1/orders/ord-1/events"
        let first = try held(url, router, harness)
        defer { first.stop() }
        #expect(first.waitFor("id: 1\nevent: order.placed\n"), "the backlog: \(first.text) \(pushpin.logs)")
        let head = first.text.lowercased()
        #expect(head.hasPrefix("http/1.1 200") && head.contains("content-type: text/event-stream") && !head.contains("grip-"),
                "Pushpin answers the stream and keeps the instructions to itself")

        // The kitchen bumps: order-service publishes order.ready, the consumer applies it.
        try harness.deliver(StreamsHarness.orderEvent(.orderReady, seq: 2, state: .ready).0, topic: "order.ready.caffe-macs.")
        #expect(first.waitFor("id: 2\nevent: order.ready\ndata: {"), "the held client got the event: \(first.text)")

        // A phone back in the foreground, having seen event 1.
        let resumed = try held(url, headers: ["Last-Event-ID: 1"], router, harness)
        defer { resumed.stop() }
        #expect(resumed.waitFor("id: 2\nevent: order.ready\n"))
        #expect(!resumed.text.contains("id: 1\n"), "nothing it had seen")

        // Both are held on the channel: the next event reaches each once.
        try harness.deliver(StreamsHarness.orderEvent(.orderPickedUp, seq: 3, state: .pickedUp).0, topic: "order.pickedUp.caffe-macs.")
        #expect(first.waitFor("id: 3\n") && resumed.waitFor("id: 3\n"))
        Thread.sleep(forTimeInterval: 0.2)
        #expect(first.text.components(separatedBy: "id: 3\n").count == 2 && resumed.text.components(separatedBy: "id: 2\n").count == 2)
    }

    @Test("a caller the service refuses gets the problem through Pushpin, and is not held")
    func refusedThroughPushpin() throws {
        let pushpin = try StreamsPushpin()
        defer { pushpin.stop() }
        let harness = try StreamsHarness(publishEndpoint: "tcp://127.0.0.1:\(pushpin.pushInPort)")
        harness.service.answer = Problem(.forbidden, "not your order").response
        let context = try Context()
        let router = try Socket(context, .router)
        defer { router.close() }
        try router.setLinger(milliseconds: 0)
        try router.connect("tcp://127.0.0.1:\(pushpin.zhttpPort)")
        let client = try held("http://127.0.0.1:\(pushpin.httpPort)/v1/orders/ord-1/events", router, harness)
        defer { client.stop() }
        #expect(client.waitFor("\"code\":\"auth.forbidden\""), "\(client.text) \(pushpin.logs)")
        #expect(client.text.lowercased().hasPrefix("http/1.1 403") && client.text.lowercased().contains("application/problem+json"))
    }
}
