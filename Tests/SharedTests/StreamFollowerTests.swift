import Foundation
import Messages
import SQLite
import ServiceRuntime
import Testing
import ZeroMQ

/// What a follower's handlers saw.
final class FollowerRecorder {
    var applied: [String] = []
    var deadLetters: [(topic: String, seq: UInt64?, error: String)] = []
}

/// A follower over a temporary database whose handler writes one row per event (in the
/// follower's transaction) and throws for orders named "poison" after writing.
struct FollowerHarness {
    let temp: TemporaryDatabase
    let context: Context
    let recorder = FollowerRecorder()
    var db: Database

    init() throws {
        temp = try TemporaryDatabase()
        context = try Context()
        db = temp.db
        try db.execute("CREATE TABLE effects (source TEXT, stream TEXT, seq INTEGER, order_id TEXT)")
    }

    func follower(on db: Database, durableStreams: Set<String> = ["order"], prefixes: [String] = ["order."]) throws -> StreamFollower {
        let recorder = recorder
        return try StreamFollower(
            db: db, logger: silentLogger, context: context, durableStreams: durableStreams, prefixes: prefixes,
            apply: { topic, envelope in
                guard case .order(let event) = envelope.body else { return }
                try db.run("INSERT INTO effects VALUES (?, ?, ?, ?)", envelope.source, envelope.stream, envelope.seq, event.order.orderId)
                if event.order.orderId == "poison" { throw Boom() }
                recorder.applied.append("\(envelope.source)/\(envelope.stream)#\(envelope.seq)")
            },
            deadLetter: { topic, envelope, _, error in
                recorder.deadLetters.append((topic, envelope?.seq, "\(error)"))
            })
    }

    func effects(_ db: Database? = nil) throws -> [UInt64] {
        try (db ?? self.db).query("SELECT seq FROM effects ORDER BY rowid").map { UInt64($0.int64("seq")) }
    }

    func finish() { temp.finish() }
}

/// An order event as order-service publishes it.
func orderEvent(_ seq: UInt64, source: String = "order-service", stream: String = "order", orderId: String? = nil) -> Envelope {
    var body = Samples.order
    body.orderId = orderId ?? "ord-\(seq)"
    return Envelope(type: .orderPlaced, source: source, stream: stream, seq: seq, time: Samples.time,
                    body: .order(OrderEvent(order: body, previous: nil, reason: nil, at: Samples.time)))
}

let orderTopic = Topic.order(state: "placed", cafe: "macs")

@Suite("Stream follower")
struct StreamFollowerTests {
    func deliver(_ follower: StreamFollower, _ envelope: Envelope, topic: String = orderTopic) -> StreamFollower.Outcome {
        follower.receive(topic: topic, envelope: envelope, raw: Wire.encode(envelope))
    }

    @Test("events apply in order; a redelivered event is skipped")
    func inOrderAndDuplicates() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        let events = [1, 2, 3].map { orderEvent($0) }
        #expect(events.map { deliver(follower, $0) } == [.applied, .applied, .applied])
        #expect(deliver(follower, events[1]) == .duplicate)
        #expect(deliver(follower, events[2]) == .duplicate)
        #expect(follower.collisionCount == 0, "the same events again are no collision")
        #expect(try harness.effects() == [1, 2, 3])
        #expect(follower.cursor(source: "order-service", stream: "order") == 3)
        #expect(follower.appliedCount == 3)
        #expect(follower.duplicateCount == 2)
        #expect(follower.cursorSummary == ["order-service/order": 3])
    }

    @Test("the cursor survives closing and reopening the database")
    func cursorPersisted() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let first = try harness.follower(on: harness.db)
        #expect(deliver(first, orderEvent(1)) == .applied)
        #expect(deliver(first, orderEvent(2)) == .applied)
        first.close()
        harness.db.close()

        let reopened = try harness.temp.reopen()
        defer { reopened.close() }
        let second = try harness.follower(on: reopened)
        defer { second.close() }
        #expect(second.cursor(source: "order-service", stream: "order") == 2)
        #expect(deliver(second, orderEvent(2)) == .duplicate, "an event applied before the restart is not applied again")
        #expect(deliver(second, orderEvent(3)) == .applied)
        #expect(try harness.effects(reopened) == [1, 2, 3])
    }

    @Test("a handler that throws is dead-lettered, its writes rolled back, and the stream moves on")
    func poisonIsDeadLettered() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        #expect(deliver(follower, orderEvent(1)) == .applied)
        #expect(deliver(follower, orderEvent(2, orderId: "poison")) == .deadLettered)
        #expect(deliver(follower, orderEvent(3)) == .applied, "the poison event does not block the stream")
        #expect(deliver(follower, orderEvent(2, orderId: "poison")) == .duplicate, "nor is it retried forever")
        #expect(try harness.effects() == [1, 3], "the poison event's own write was rolled back")
        #expect(harness.recorder.deadLetters.count == 1)
        #expect(harness.recorder.deadLetters.first?.seq == 2)
        #expect(harness.recorder.deadLetters.first?.topic == orderTopic)
        #expect(harness.recorder.deadLetters.first?.error == "Boom()")

        let again = try harness.follower(on: harness.db)
        defer { again.close() }
        #expect(again.cursor(source: "order-service", stream: "order") == 3, "the skip is persisted")
    }

    @Test("a gap that cannot be filled (no replay endpoint yet) applies nothing out of order")
    func gapWithoutPublisher() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        #expect(deliver(follower, orderEvent(1)) == .applied)
        #expect(deliver(follower, orderEvent(3)) == .gap)
        #expect(follower.cursor(source: "order-service", stream: "order") == 1)
        #expect(deliver(follower, orderEvent(2)) == .applied)
        #expect(deliver(follower, orderEvent(3)) == .applied)
        #expect(try harness.effects() == [1, 2, 3])
    }

    @Test("publishers and streams keep separate cursors")
    func separateCursors() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let follower = try harness.follower(on: harness.db, durableStreams: ["order", "kitchen"], prefixes: ["order.", "kitchen."])
        defer { follower.close() }
        #expect(deliver(follower, orderEvent(1, source: "order-service-a")) == .applied)
        #expect(deliver(follower, orderEvent(1, source: "order-service-b")) == .applied)
        #expect(deliver(follower, orderEvent(1, source: "order-service-a", stream: "kitchen"), topic: "kitchen.ready.macs.") == .applied)
        #expect(deliver(follower, orderEvent(2, source: "order-service-b")) == .applied)
        #expect(follower.cursorSummary == ["order-service-a/order": 1, "order-service-b/order": 2, "order-service-a/kitchen": 1])
    }

    @Test("a durable event on a topic this consumer did not subscribe to moves the cursor without applying")
    func unwantedTopic() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let follower = try harness.follower(on: harness.db, prefixes: ["order.placed.macs."])
        defer { follower.close() }
        #expect(deliver(follower, orderEvent(1), topic: "order.placed.macs-park.") == .applied)
        #expect(deliver(follower, orderEvent(2), topic: "order.placed.macs.") == .applied)
        #expect(try harness.effects() == [2])
        #expect(follower.cursor(source: "order-service", stream: "order") == 2)
    }

    @Test("best-effort streams are applied as they come, without cursors")
    func bestEffortStream() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        let sighting = orderEvent(5, stream: "sighting")
        #expect(deliver(follower, sighting) == .applied)
        #expect(deliver(follower, sighting) == .applied)
        #expect(deliver(follower, orderEvent(6, stream: "sighting", orderId: "poison")) == .deadLettered)
        #expect(follower.cursorSummary.isEmpty)
        #expect(harness.recorder.deadLetters.map(\.seq) == [6])
    }

    @Test("shed counting saturates: a publisher jumping between seq 1 and Int64.max does not trap the consumer")
    func shedSaturates() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        for seq in [1, UInt64(Int64.max), 1, UInt64(Int64.max), 1, UInt64(Int64.max)] {
            _ = deliver(follower, orderEvent(seq, source: "intruder", stream: "sighting"))
        }
        #expect(follower.shed["intruder"] == .max)
    }

    @Test("a heartbeat is observed, not applied")
    func heartbeatNotApplied() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        let heartbeat = Envelope(type: .heartbeat, source: "order-service", stream: "heartbeat", seq: 1, time: Samples.time,
                                 body: .heartbeat(Heartbeat(service: "order-service", streams: [:], replayEndpoint: "inproc://unused")))
        #expect(deliver(follower, heartbeat, topic: Topic.heartbeat(source: "order-service")) == .applied)
        #expect(harness.recorder.applied.isEmpty)
        #expect(follower.cursorSummary.isEmpty)
    }

    @Test("catch-up: a heartbeat ahead of the cursor and a gap are filled from the publisher's replay", arguments: Transport.allCases)
    func catchUpFromReplay(_ transport: Transport) throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let published = Locked((1...5).map { ReplayedEvent(topic: orderTopic, envelope: orderEvent(UInt64($0))) })
        let server = RouterServer { router in
            router.on(Op.replay, ReplayRequest.self) { request in
                let events = published.value
                let matching = events.filter { $0.envelope.stream == request.stream && $0.envelope.seq >= request.fromSeq }
                return ReplayReply(stream: request.stream, lastSeq: events.last?.envelope.seq ?? 0, events: Array(matching.prefix(request.limit ?? 500)))
            }
        }
        let endpoint = try #require(server.start(context: harness.context, bind: transport.bindEndpoint()))
        defer { server.stopAndWait() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }

        // Tail loss: the heartbeat says seq 5 exists; we have nothing yet.
        follower.observe(Heartbeat(service: "order-service", streams: ["order": 5, "other": 9], replayEndpoint: endpoint), source: "order-service")
        #expect(follower.cursor(source: "order-service", stream: "order") == 5)
        #expect(follower.replayedCount == 5)
        #expect(try harness.effects() == [1, 2, 3, 4, 5])

        // The publisher moves on; 6 is lost on the bus and 7 arrives live: the gap is replayed,
        // and the replay already holds 7 itself, so 7 is applied exactly once.
        published.update { $0 += (6...7).map { ReplayedEvent(topic: orderTopic, envelope: orderEvent(UInt64($0))) } }
        #expect(deliver(follower, orderEvent(7)) == .applied)
        #expect(follower.cursor(source: "order-service", stream: "order") == 7)
        #expect(deliver(follower, orderEvent(6)) == .duplicate, "the late live copy of a replayed event is skipped")
        #expect(try harness.effects() == [1, 2, 3, 4, 5, 6, 7])
        #expect(harness.recorder.applied == (1...7).map { "order-service/order#\($0)" })
        #expect(server.requests >= 1)
    }

    @Test("a catch-up stops between replay pages once the process is stopping, keeps what it applied, and goes on after")
    func catchUpStopsBetweenPages() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let published = (1...1_200).map { ReplayedEvent(topic: orderTopic, envelope: orderEvent(UInt64($0))) }
        let server = RouterServer { router in
            router.on(Op.replay, ReplayRequest.self) { request in
                let matching = published.filter { $0.envelope.seq >= request.fromSeq }
                return ReplayReply(stream: request.stream, lastSeq: 1_200, events: Array(matching.prefix(request.limit ?? 500)))
            }
        }
        let endpoint = try #require(server.start(context: harness.context, bind: Transport.inproc.bindEndpoint()))
        defer { server.stopAndWait() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }

        // SIGTERM arrives while the first page is applied.
        follower.shouldStop = { server.requests >= 1 }
        follower.observe(Heartbeat(service: "order-service", streams: ["order": 1_200], replayEndpoint: endpoint), source: "order-service")
        #expect(server.requests == 1, "no page is asked for once stopping")
        #expect(follower.cursor(source: "order-service", stream: "order") == 500)
        #expect(try harness.effects().count == 500)

        // After a restart (here: the flag cleared) the next heartbeat replays the rest, each once.
        follower.shouldStop = { false }
        follower.observe(Heartbeat(service: "order-service", streams: ["order": 1_200], replayEndpoint: endpoint), source: "order-service")
        #expect(follower.cursor(source: "order-service", stream: "order") == 1_200)
        #expect(try harness.effects() == Array(1...1_200))
    }
}

@Test("a publisher that started over (new epoch, seq from 1) is followed again, not dropped as duplicates")
func publisherStartedOver() throws {
    let harness = try FollowerHarness()
    defer { harness.finish() }
    let follower = try harness.follower(on: harness.db)
    func heartbeat(_ epoch: String) -> Envelope {
        Envelope(type: .heartbeat, source: "order-service", stream: "heartbeat", seq: 1, time: Samples.time,
                 body: .heartbeat(Heartbeat(service: "order-service", streams: [:], replayEndpoint: "inproc://nobody-\(epoch)", epoch: epoch)))
    }
    func receive(_ envelope: Envelope) -> StreamFollower.Outcome {
        follower.receive(topic: orderTopic, envelope: envelope, raw: Wire.encode(envelope))
    }
    _ = receive(heartbeat("first"))
    for seq in UInt64(1)...3 { #expect(receive(orderEvent(seq)) == .applied) }
    // The publisher's database is wiped: same name, seq 1 again, a new epoch.
    #expect(receive(orderEvent(1, orderId: "new-1")) == .duplicate, "before its heartbeat it looks like a duplicate")
    _ = receive(heartbeat("second"))
    #expect(follower.cursor(source: "order-service", stream: "order") == 0)
    #expect(receive(orderEvent(1, orderId: "new-1")) == .applied)
    #expect(try harness.effects() == [1, 2, 3, 1])
    // The reset is durable: a follower reopened on the same database keeps the new epoch and cursor.
    let reopened = try harness.follower(on: harness.db)
    #expect(reopened.cursor(source: "order-service", stream: "order") == 1)
    reopened.observe(Heartbeat(service: "order-service", streams: ["order": 1], replayEndpoint: "inproc://nobody", epoch: "second"), source: "order-service")
    #expect(reopened.cursor(source: "order-service", stream: "order") == 1, "the same epoch resets nothing")
    // Without any epoch, a last seq below our cursor still reveals a publisher that lost its history.
    reopened.observe(Heartbeat(service: "order-service", streams: [:], replayEndpoint: "inproc://nobody", epoch: ""), source: "order-service")
    #expect(reopened.cursor(source: "order-service", stream: "order") == 0)
}

@Test("a heartbeat older than what was already applied (queued behind a replayed gap) resets nothing; a real go-back still does")
func staleHeartbeatResetsNothing() throws {
    let harness = try FollowerHarness()
    defer { harness.finish() }
    let follower = try harness.follower(on: harness.db)
    let start = Samples.time
    func event(_ seq: UInt64) -> Envelope {
        var envelope = orderEvent(seq)
        envelope.time = start.adding(seconds: Double(seq))
        return envelope
    }
    func heartbeat(last: UInt64, readAt seconds: Double?) -> Heartbeat {
        Heartbeat(service: "order-service", streams: ["order": last], replayEndpoint: "inproc://nobody-stale",
                  epoch: "only", at: seconds.map { start.adding(seconds: $0) })
    }
    func receive(_ envelope: Envelope) -> StreamFollower.Outcome {
        follower.receive(topic: orderTopic, envelope: envelope, raw: Wire.encode(envelope))
    }
    follower.observe(heartbeat(last: 0, readAt: 0), source: "order-service")
    for seq in UInt64(1)...5 { #expect(receive(event(seq)) == .applied) }
    // Read when the stream was at 3, before events 4 and 5 were written; it arrives after them
    // (a catch-up replayed them over the request socket while it waited on the bus).
    follower.observe(heartbeat(last: 3, readAt: 3.5), source: "order-service")
    #expect(follower.cursor(source: "order-service", stream: "order") == 5, "a stale heartbeat resets nothing")
    // Read in the very millisecond event 5 was written, still before it: stale too.
    follower.observe(heartbeat(last: 4, readAt: 5), source: "order-service")
    #expect(follower.cursor(source: "order-service", stream: "order") == 5)
    #expect(try harness.effects() == [1, 2, 3, 4, 5])
    // The same epoch, read after everything we applied, and lower: the publisher's database was
    // put back (a hand-copied backup keeps its epoch). Its history is followed again.
    follower.observe(heartbeat(last: 2, readAt: 60), source: "order-service")
    #expect(follower.cursor(source: "order-service", stream: "order") == 0)
}

@Test("a heartbeat's time is optional on the wire (older publishers) and refused when it is not a time")
func heartbeatTimeOnTheWire() throws {
    let at = Samples.time
    let heartbeat = Heartbeat(service: "order-service", streams: ["order": 4], replayEndpoint: "tcp://127.0.0.1:7430", epoch: "e", at: at)
    let envelope = Envelope(type: .heartbeat, source: "order-service", stream: "heartbeat", seq: 1, time: at, body: .heartbeat(heartbeat))
    #expect(try Wire.decodeEnvelope(Wire.encode(envelope)).body == .heartbeat(heartbeat))
    let text = String(decoding: Wire.encode(envelope), as: UTF8.self)
    let quoted = "\"at\":\"\(at.rfc3339)\""
    #expect(text.contains(quoted))
    var older = heartbeat
    older.at = nil
    #expect(try Wire.decodeEnvelope(Data(text.replacingOccurrences(of: "," + quoted, with: "").replacingOccurrences(of: quoted + ",", with: "").utf8)).body == .heartbeat(older))
    #expect(throws: WireError.self) { try Wire.decodeEnvelope(Data(text.replacingOccurrences(of: quoted, with: "\"at\":\"yesterday\"").utf8)) }
}

@Suite("Stream follower: shards")
struct StreamFollowerShardTests {
    @Test("a sharded publisher of another shard is skipped only when every prefix of the stream names a shard, and none its own")
    func otherShard() {
        let regionS0 = ["sighting.s0.", "device.s0."]
        #expect(StreamFollower.otherShard("s1", stream: "device", prefixes: regionS0))
        #expect(!StreamFollower.otherShard("s0", stream: "device", prefixes: regionS0))
        // A publisher of every shard (no shard in its heartbeat) is followed.
        #expect(!StreamFollower.otherShard(nil, stream: "device", prefixes: regionS0))
        // A shard value that names no shard is ignored, not taken as "another shard".
        for garbage in ["", "x", "s", "sx", "1", "s１"] {
            #expect(!StreamFollower.otherShard(garbage, stream: "device", prefixes: regionS0), "\(garbage)")
        }
        // Prefixes of the stream that are not shard topics: followed (order-service and region-monitor-s1's events).
        #expect(!StreamFollower.otherShard("s1", stream: "region", prefixes: ["region.event.", "kitchen."]))
        #expect(!StreamFollower.otherShard("s1", stream: "device", prefixes: ["device."]))
        #expect(!StreamFollower.otherShard("s1", stream: "device", prefixes: ["device.s0.", "device."]))
        // No prefix of the stream at all: nothing to decide here.
        #expect(!StreamFollower.otherShard("s1", stream: "device", prefixes: ["sighting.s0."]))
        // Not shard names: "sx", "s", "s1a".
        #expect(!StreamFollower.otherShard("s1", stream: "device", prefixes: ["device.sx."]))
        #expect(!StreamFollower.otherShard("s1", stream: "device", prefixes: ["device.s."]))
        #expect(StreamFollower.otherShard("s1", stream: "device", prefixes: ["device.s0.", "device.s2."]))
    }
}
