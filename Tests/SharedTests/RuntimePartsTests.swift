import Foundation
import Messages
import SQLite
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// The outbox sends what committed from memory and follows savepoints; the follower dedupes by
/// event id and never makes a blocking catch-up request inside an open transaction.
@Suite("Service runtime parts")
struct RuntimePartsTests {
    func append(_ outbox: Outbox, _ n: Int) throws {
        try outbox.append(.kitchenReady, topic: "kitchen.ready.macs.", stream: "kitchen", body: OutboxTests.body(n))
    }

    func sent(_ outbox: Outbox) throws -> [String] {
        var ids: [String] = []
        try outbox.flush { _, data in
            guard case .kitchen(let event) = try Wire.decodeEnvelope(data).body else { return }
            ids.append(event.orderId)
        }
        return ids
    }

    @Test("an event written in a savepoint that rolled back is never sent; the rest of the transaction is")
    func savepointRollback() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: ManualClock())
        try temp.db.transaction {
            try append(outbox, 1)
            #expect(throws: Boom.self) {
                try temp.db.transaction {
                    try append(outbox, 2)
                    throw Boom()
                }
            }
            try append(outbox, 3)
        }
        #expect(try sent(outbox) == ["ord-1", "ord-3"])
        #expect(try outbox.replay(stream: "kitchen", fromSeq: 1, limit: 10).map(\.seq) == [1, 2], "ord-3 took the rolled-back seq")
    }

    @Test("what a transaction wrote is sent once it commits, and not before; a rolled-back one is never sent")
    func sentAfterCommit() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: ManualClock())
        #expect(throws: Boom.self) {
            try temp.db.transaction {
                try append(outbox, 1)
                throw Boom()
            }
        }
        #expect(try sent(outbox).isEmpty)
        try temp.db.transaction {
            try append(outbox, 2)
            #expect(try sent(outbox).isEmpty, "nothing leaves while the transaction is open")
        }
        #expect(try sent(outbox) == ["ord-2"])
        #expect(try outbox.pendingCount() == 0)
    }

    @Test("a durable event seen again under a new seq moves the cursor and is not applied twice")
    func sameIdNewSeq() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        let first = orderEvent(1)
        var again = orderEvent(2)
        again.id = first.id
        #expect(follower.receive(topic: orderTopic, envelope: first, raw: Wire.encode(first)) == .applied)
        #expect(follower.receive(topic: orderTopic, envelope: again, raw: Wire.encode(again)) == .duplicate)
        #expect(follower.cursor(source: "order-service", stream: "order") == 2)
        #expect(follower.seenAgainCount == 1)
        #expect(try harness.effects() == [1])
        #expect(follower.receive(topic: orderTopic, envelope: orderEvent(3), raw: Data()) == .applied)
        #expect(try harness.effects() == [1, 3])
    }

    @Test("a gap seen inside an open transaction asks nothing until it commits; then the gap and the held event apply in order")
    func catchUpAfterCommit() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let published = Locked((1...3).map { ReplayedEvent(topic: orderTopic, envelope: orderEvent(UInt64($0))) })
        let server = RouterServer { router in
            router.on(Op.replay, ReplayRequest.self) { request in
                let matching = published.value.filter { $0.envelope.seq >= request.fromSeq && $0.envelope.seq <= 2 }
                return ReplayReply(stream: request.stream, lastSeq: 2, events: matching)
            }
        }
        let endpoint = try #require(server.start(context: harness.context, bind: Transport.inproc.bindEndpoint()))
        defer { server.stopAndWait() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        follower.observe(Heartbeat(service: "order-service", streams: [:], replayEndpoint: endpoint), source: "order-service")

        let third = published.value[2].envelope
        let outcome = try harness.db.transaction {
            follower.receive(topic: orderTopic, envelope: third, raw: Wire.encode(third))
        }
        #expect(outcome == .gap)
        #expect(server.requests == 0, "no request while the transaction was open")
        #expect(follower.hasPendingCatchUps)
        #expect(try harness.effects().isEmpty)

        follower.runPendingCatchUps()
        #expect(server.requests >= 1)
        #expect(!follower.hasPendingCatchUps)
        #expect(try harness.effects() == [1, 2, 3], "the replayed gap, then the held event")
        #expect(follower.cursor(source: "order-service", stream: "order") == 3)
    }

    @Test("a heartbeat ahead of the cursor inside an open transaction is caught up after it")
    func heartbeatCatchUpAfterCommit() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let events = (1...2).map { ReplayedEvent(topic: orderTopic, envelope: orderEvent(UInt64($0))) }
        let server = RouterServer { router in
            router.on(Op.replay, ReplayRequest.self) { request in
                ReplayReply(stream: request.stream, lastSeq: 2, events: events.filter { $0.envelope.seq >= request.fromSeq })
            }
        }
        let endpoint = try #require(server.start(context: harness.context, bind: Transport.inproc.bindEndpoint()))
        defer { server.stopAndWait() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        try harness.db.transaction {
            follower.observe(Heartbeat(service: "order-service", streams: ["order": 2], replayEndpoint: endpoint), source: "order-service")
        }
        #expect(server.requests == 0)
        follower.runPendingCatchUps()
        #expect(try harness.effects() == [1, 2])
    }
}

@Suite("Envelope frame")
struct EnvelopeFrameTests {
    @Test("the body bytes inside an encoded envelope are exactly the body encoded alone", arguments: EventType.allCases.filter { $0 != .heartbeat })
    func bodySlice(_ type: EventType) throws {
        let body = Samples.body(for: type)
        let frame = Wire.encode(Envelope(type: type, source: "x", stream: "s", seq: 1, time: Samples.time, body: body))
        let slice = try #require(EnvelopeFrame.body(of: frame))
        let alone: Data = switch body {
        case .region(let event): Wire.encode(event)
        case .order(let event): Wire.encode(event)
        case .kitchen(let event): Wire.encode(event)
        case .notification(let n): Wire.encode(n)
        case .nearest(let n): Wire.encode(n)
        case .purged(let p): Wire.encode(p)
        case .sighting(let s): Wire.encode(s)
        case .locationFix(let f): Wire.encode(f)
        case .deviceStatus(let d): Wire.encode(d)
        case .deadLetter(let d): Wire.encode(d)
        case .heartbeat(let h): Wire.encode(h)
        }
        #expect(slice == alone)
    }

    @Test("a frame that does not start with the body is refused", arguments: ["", "{}", "{\"id\":1}", "{\"body\":{\"a\":\"}\"", "{\"body\":"])
    func refused(_ text: String) {
        #expect(EnvelopeFrame.body(of: Data(text.utf8)) == nil)
    }
}

@Suite("Envelope frame members")
struct EnvelopeFrameMemberTests {
    @Test("a member of an encoded body is exactly the member encoded alone")
    func orderSnapshot() throws {
        guard case .order(let event) = Samples.body(for: .orderReady) else { Issue.record("not an order body"); return }
        let body = Wire.encode(event)
        #expect(EnvelopeFrame.member("order", of: body) == Wire.encode(event.order))
        #expect(EnvelopeFrame.member("at", of: body) == Wire.encode(event.at))
        #expect(EnvelopeFrame.member("missing", of: body) == nil)
    }

    @Test("scalars, nested values and strings with braces are skipped whole", arguments: [
        (#"{"a":1,"b":{"c":"}"},"d":[1,{"e":2}],"f":true}"#, "f", "true"),
        (#"{"a":1,"b":{"c":"}"},"d":[1,{"e":2}],"f":true}"#, "d", #"[1,{"e":2}]"#),
        (#"{"a":"x\"y","b":null}"#, "b", "null"),
        (#"{"a":-1.5e3}"#, "a", "-1.5e3"),
    ])
    func members(object: String, key: String, value: String) {
        #expect(EnvelopeFrame.member(key, of: Data(object.utf8)) == Data(value.utf8))
    }
}
