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
        case .paced(let p): Wire.encode(p)
        case .availability(let a): Wire.encode(a)
        case .notification(let n): Wire.encode(n)
        case .nearest(let n): Wire.encode(n)
        case .purged(let p): Wire.encode(p)
        case .sighting(let s): Wire.encode(s)
        case .sightings(let b): Wire.encode(b)
        case .locationFix(let f): Wire.encode(f)
        case .deviceStatus(let d): Wire.encode(d)
        case .deadLetter(let d): Wire.encode(d)
        case .heartbeat(let h): Wire.encode(h)
        }
        #expect(slice == alone)
    }

    @Test("the body range the encoder marks is the body the frame is scanned for", arguments: EventType.allCases.filter { $0 != .heartbeat })
    func markedBody(_ type: EventType) throws {
        let envelope = Envelope(type: type, source: "x", stream: "s", seq: 1, time: Samples.time, body: Samples.body(for: type))
        let (frame, range) = Wire.encodeMarkingBody(envelope)
        #expect(frame == Wire.encode(envelope))
        let scanned = try #require(EnvelopeFrame.body(of: frame))
        // The hand-written route marks it; only a frame JSONEncoder wrote leaves it to the scan.
        if let range { #expect(frame.subdata(in: range) == scanned) }
        let fastRoute: Set<EventType> = [.sightingReported, .sightingBatch, .regionEvent, .regionNearest]
        if fastRoute.contains(type) { #expect(range != nil) }
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

@Suite("Consumer under failure")
struct ConsumerFailureTests {
    @Test("a cursor moves only with the commit that stores it: a batch that rolls back leaves it where it was")
    func cursorFollowsCommit() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        #expect(follower.receive(topic: orderTopic, envelope: orderEvent(1), raw: Data()) == .applied)
        #expect(throws: Boom.self) {
            try harness.db.transaction {
                #expect(follower.receive(topic: orderTopic, envelope: orderEvent(2), raw: Data()) == .applied)
                #expect(follower.cursor(source: "order-service", stream: "order") == 2)
                throw Boom()   // the group commit fails
            }
        }
        #expect(follower.cursor(source: "order-service", stream: "order") == 1, "the rolled-back event is applied again when it comes back")
        #expect(follower.receive(topic: orderTopic, envelope: orderEvent(2), raw: Data()) == .applied)
        #expect(try harness.effects() == [1, 2])
    }

    @Test("a full database fails the event without dead-lettering it or moving the cursor; it applies once there is room")
    func fullDatabase() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        #expect(follower.receive(topic: orderTopic, envelope: orderEvent(1), raw: Data()) == .applied)
        let pages = try #require(try harness.db.query("PRAGMA page_count").first?.int("page_count"))
        try harness.db.execute("PRAGMA max_page_count=\(pages)")
        var outcome = StreamFollower.Outcome.applied
        var n: UInt64 = 2
        // Fill the last pages; the first event that needs a new page fails.
        while outcome != .failed, n < 5_000 {
            outcome = follower.receive(topic: orderTopic, envelope: orderEvent(n, orderId: String(repeating: "o", count: 60) + "\(n)"), raw: Data())
            n += 1
        }
        #expect(outcome == .failed)
        let failedSeq = n - 1
        #expect(follower.storageFailure?.isFull == true)
        #expect(harness.db.storageFailure?.isFull == true)
        #expect(follower.cursor(source: "order-service", stream: "order") == failedSeq - 1)
        #expect(harness.recorder.deadLetters.isEmpty)
        try harness.db.execute("PRAGMA max_page_count=100000")
        #expect(follower.receive(topic: orderTopic, envelope: orderEvent(failedSeq), raw: Data()) == .applied)
        #expect(harness.db.storageFailure == nil, "a commit that wrote clears it")
        #expect(follower.storageFailure == nil)
    }

    @Test("best-effort events that never arrived are counted per source; a publisher restarting at 1 is not a gap")
    func shedCounted() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        for seq: UInt64 in [1, 2, 5, 6, 10, 1, 2] {
            _ = follower.receive(topic: orderTopic, envelope: orderEvent(seq, source: "beacon-ingest", stream: "sighting"), raw: Data())
        }
        _ = follower.receive(topic: orderTopic, envelope: orderEvent(3, source: "other", stream: "sighting"), raw: Data())
        #expect(follower.shed == ["beacon-ingest": 5])
    }

    @Test("a stream behind its publisher's heartbeat is reported once it has been behind long enough")
    func behind() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let follower = try harness.follower(on: harness.db)
        defer { follower.close() }
        follower.observe(Heartbeat(service: "order-service", streams: ["order": 3], replayEndpoint: "inproc://nobody-answers"), source: "order-service")
        #expect(follower.streamsBehind(longerThan: 60).isEmpty)
        #expect(follower.streamsBehind(longerThan: -1) == ["order-service/order"])
        for seq: UInt64 in 1...3 { _ = follower.receive(topic: orderTopic, envelope: orderEvent(seq), raw: Data()) }
        follower.observe(Heartbeat(service: "order-service", streams: ["order": 3], replayEndpoint: "inproc://nobody-answers"), source: "order-service")
        #expect(follower.streamsBehind(longerThan: -1).isEmpty)
    }
}

@Suite("Database storage")
struct DatabaseStorageTests {
    @Test("the WAL is bounded: after a burst and a checkpoint it is truncated")
    func walBounded() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (b BLOB)")
        for _ in 0..<40 {
            try temp.db.transaction { for _ in 0..<16 { try temp.db.run("INSERT INTO t VALUES (zeroblob(8192))") } }
        }
        let wal = temp.path + "-wal"
        let size = { (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? NSNumber)?.intValue ?? 0 }
        #expect(size() <= 1_048_576 + 256 * 4_200, "autocheckpoint at 256 pages and journal_size_limit 1 MiB keep the log near 1 MiB: \(size())")
        try temp.db.checkpoint()
        #expect(size() == 0)
    }

    @Test("quick_check finds a damaged page")
    func quickCheck() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        try temp.db.execute("CREATE TABLE t (a TEXT)")
        for n in 0..<400 { try temp.db.run("INSERT INTO t VALUES (?)", String(repeating: "x", count: 100) + "\(n)") }
        #expect(try temp.db.quickCheckProblems() == nil)
        try temp.db.checkpoint()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temp.path))
        try handle.seek(toOffset: 4096)
        handle.write(Data(repeating: 0xA5, count: 4096))
        try handle.close()
        let reopened = try temp.reopen()
        defer { reopened.close() }
        #expect(try reopened.quickCheckProblems() != nil)
    }
}

@Suite("Quoting what a client sent")
struct QuotingTests {
    @Test("short values are quoted whole; long ones cut at 64 characters with their length", arguments: [
        ("teleport", "\"teleport\""),
        (String(repeating: "x", count: 64), "\"" + String(repeating: "x", count: 64) + "\""),
        (String(repeating: "x", count: 200_000), "\"" + String(repeating: "x", count: 64) + "…\" (200000 characters)"),
    ])
    func quoted(value: String, expected: String) {
        #expect(Quoting.quoted(value) == expected)
    }

    @Test("an unknown op of 200,000 characters is answered with 64 of them")
    func unknownOpCut() throws {
        let router = RequestRouter(logger: silentLogger, maxRequestBytes: 1_000_000)
        let op = String(repeating: "z", count: 200_000)
        let reply = try Wire.decodeReply(router.handle(Data("{\"op\":\"\(op)\",\"id\":\"1\",\"body\":{}}".utf8)), body: Empty.self)
        #expect(reply.error?.code == "request.unknownOp")
        #expect((reply.error?.message.count ?? .max) < 200)
    }
}

@Suite("Free loopback ports")
struct LoopbackPortsTests {
    @Test("distinct, bindable, and below the ephemeral range, where outgoing connections never take them")
    func belowEphemeral() throws {
        let ports = try LoopbackPorts.free(40)
        #expect(Set(ports).count == 40)
        #expect(ports.allSatisfy { LoopbackPorts.range.contains($0) })
    }
}
