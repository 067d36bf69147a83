import Foundation
import Messages
import Policy
import SQLite
import ServiceRuntime
import Testing
import ZeroMQ

/// Seq collisions (issue 13): in plain mode a forged event can take the next seq of a publisher's
/// stream; the publisher's own event with that seq must still be applied, once, and a forged one
/// arriving second must not be.
@Suite("Stream follower: seq collisions")
struct StreamCollisionTests {
    /// A replay server holding `events` as order-service's outbox.
    static func outbox(_ events: [Envelope], context: Context) throws -> (RouterServer, String) {
        let published = events.map { ReplayedEvent(topic: orderTopic, envelope: $0) }
        let server = RouterServer { router in
            router.on(Op.replay, ReplayRequest.self) { request in
                let matching = published.filter { $0.envelope.stream == request.stream && $0.envelope.seq >= request.fromSeq }
                return ReplayReply(stream: request.stream, lastSeq: published.last?.envelope.seq ?? 0, events: Array(matching.prefix(request.limit ?? 500)))
            }
        }
        let endpoint = try #require(server.start(context: context, bind: Transport.inproc.bindEndpoint()))
        return (server, endpoint)
    }

    func deliver(_ follower: StreamFollower, _ envelope: Envelope) -> StreamFollower.Outcome {
        follower.receive(topic: orderTopic, envelope: envelope, raw: Wire.encode(envelope))
    }

    @Test("a forged event that took the next seq first: the publisher's own event with that seq is still applied, the cursor does not move back")
    func forgedFirst() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let real = [orderEvent(1, orderId: "real-1"), orderEvent(2, orderId: "real-2")]
        let (server, endpoint) = try Self.outbox(real, context: harness.context)
        defer { server.stopAndWait() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        follower.observe(Heartbeat(service: "order-service", streams: [:], replayEndpoint: endpoint), source: "order-service")

        #expect(deliver(follower, real[0]) == .applied)
        // In plain mode nothing tells the forgery from order-service: it is applied.
        #expect(deliver(follower, orderEvent(2, orderId: "forged")) == .applied)
        #expect(deliver(follower, real[1]) == .duplicate, "at a passed seq: checked, not applied in order")
        #expect(follower.collisionCount == 1 && follower.collisionsRecovered == 1)
        let orders = try harness.db.query("SELECT order_id FROM effects ORDER BY rowid").map { $0.string("order_id") }
        #expect(orders == ["real-1", "forged", "real-2"], "the real order is not lost")
        #expect(follower.cursor(source: "order-service", stream: "order") == 2)
        #expect(harness.recorder.deadLetters.isEmpty)
        // It arrives again: a plain duplicate now, applied nowhere twice.
        #expect(deliver(follower, real[1]) == .duplicate)
        #expect(follower.collisionCount == 1)
        #expect(try harness.effects().count == 3)
    }

    @Test("a forged event at a seq already applied is dead-lettered and applied nowhere")
    func forgedSecond() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let real = [orderEvent(1, orderId: "real-1"), orderEvent(2, orderId: "real-2")]
        let (server, endpoint) = try Self.outbox(real, context: harness.context)
        defer { server.stopAndWait() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        follower.observe(Heartbeat(service: "order-service", streams: [:], replayEndpoint: endpoint), source: "order-service")
        #expect(real.map { deliver(follower, $0) } == [.applied, .applied])

        let forged = orderEvent(2, orderId: "forged")
        #expect(deliver(follower, forged) == .duplicate)
        #expect(try harness.db.query("SELECT order_id FROM effects ORDER BY rowid").map { $0.string("order_id") } == ["real-1", "real-2"])
        #expect(harness.recorder.deadLetters.count == 1)
        #expect(harness.recorder.deadLetters.first?.error.contains("is event \"\(real[1].id)\" in the publisher's outbox, not \"\(forged.id)\"") == true,
                "\(harness.recorder.deadLetters)")
        #expect(follower.collisionsRecovered == 0)
    }

    @Test("a collision seen inside an open transaction is checked after it commits")
    func collisionAfterCommit() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let real = [orderEvent(1, orderId: "real-1")]
        let (server, endpoint) = try Self.outbox(real, context: harness.context)
        defer { server.stopAndWait() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        follower.observe(Heartbeat(service: "order-service", streams: [:], replayEndpoint: endpoint), source: "order-service")
        #expect(deliver(follower, orderEvent(1, orderId: "forged")) == .applied)

        let outcome = try harness.db.transaction { deliver(follower, real[0]) }
        #expect(outcome == .duplicate)
        #expect(server.requests == 0, "no request while the transaction was open")
        #expect(follower.hasPendingCatchUps)
        follower.runPendingCatchUps()
        #expect(!follower.hasPendingCatchUps)
        #expect(try harness.db.query("SELECT order_id FROM effects ORDER BY rowid").map { $0.string("order_id") } == ["forged", "real-1"])
    }

    @Test("a replay that returns another source's event, or one its stream may not carry, applies nothing of it")
    func replayChecked() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        // order-service's replay endpoint answers with an event claiming kitchen-display as source.
        let (server, endpoint) = try Self.outbox([orderEvent(1, source: "kitchen-display", orderId: "smuggled")], context: harness.context)
        defer { server.stopAndWait() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        follower.origins = EventOrigins(serviceOf: StreamOwners.plainService(of:))
        follower.observe(Heartbeat(service: "order-service", streams: ["order": 1], replayEndpoint: endpoint), source: "order-service")
        #expect(try harness.effects().isEmpty)
        #expect(follower.cursor(source: "order-service", stream: "order") == 0)
        #expect(harness.recorder.deadLetters.first?.error.contains("returned an event of \"kitchen-display\"") == true, "\(harness.recorder.deadLetters)")
    }

    @Test("a collision seen before the publisher's first heartbeat is checked when that heartbeat says where it replays")
    func collisionBeforeHeartbeat() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let real = [orderEvent(1, orderId: "real-1")]
        let (server, endpoint) = try Self.outbox(real, context: harness.context)
        defer { server.stopAndWait() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        #expect(deliver(follower, orderEvent(1, orderId: "forged")) == .applied)
        #expect(deliver(follower, real[0]) == .duplicate)
        #expect(server.requests == 0, "no replay endpoint known yet")
        follower.observe(Heartbeat(service: "order-service", streams: ["order": 1], replayEndpoint: endpoint), source: "order-service")
        #expect(try harness.db.query("SELECT order_id FROM effects ORDER BY rowid").map { $0.string("order_id") } == ["forged", "real-1"])
        #expect(follower.collisionsRecovered == 1)
    }
}
