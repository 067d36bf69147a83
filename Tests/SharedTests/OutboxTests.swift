import Foundation
import Messages
import SQLite
import ServiceRuntime
import Testing
import TestSupport

@Suite("Transactional outbox")
struct OutboxTests {
    /// What a flush handed to the socket, decoded.
    struct Sent: Equatable {
        var topic: String
        var stream: String
        var seq: UInt64
    }

    static func body(_ n: Int) -> EventBody {
        .kitchen(KitchenEvent(orderId: "ord-\(n)", cafeId: "macs", ticketId: nil, station: nil, at: Samples.time))
    }

    func appendOrder(_ outbox: Outbox, _ db: Database, _ n: Int) throws -> Envelope {
        try db.transaction {
            try outbox.append(.kitchenReady, topic: Topic.kitchen(event: "ready", cafe: "macs"), stream: "kitchen", body: Self.body(n))
        }
    }

    func flushAll(_ outbox: Outbox) throws -> [Sent] {
        var sent: [Sent] = []
        try outbox.flush { topic, data in
            let envelope = try Wire.decodeEnvelope(data)
            sent.append(Sent(topic: topic, stream: envelope.stream, seq: envelope.seq))
        }
        return sent
    }

    @Test("keys bound streams and seqs: one more stream than keys tell apart, or a seq past them, is refused and writes nothing")
    func keysBounded() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: ManualClock())
        _ = try appendOrder(outbox, temp.db, 1)
        // The last number a key holds is taken: the next stream has none left.
        try temp.db.run("INSERT INTO outbox_streams (stream, number) VALUES ('full', ?)", (Int64(1) << 19) - 1)
        let noNumber = #expect(throws: (any Error).self) {
            try temp.db.transaction { try outbox.append(.kitchenReady, topic: "t.", stream: "menu", body: Self.body(2)) }
        }
        #expect("\(noNumber.map { "\($0)" } ?? "")".contains("no number left"))
        #expect(try temp.db.query("SELECT COUNT(*) AS n FROM outbox").first?.int("n") == 1)
        #expect(try temp.db.query("SELECT COUNT(*) AS n FROM outbox_streams WHERE stream = 'menu'").first?.int("n") == 0)

        // A stream at the last seq a key holds (as written, through the key): its next event is refused.
        let last = (Int64(1) << 44) - 1
        try temp.db.run("INSERT INTO outbox (id, stream, seq, topic, envelope, created_ms) VALUES (?, 'kitchen', ?, 't.', x'7b7d', 0)",
                        Int64(1) << 44 | last, last)
        let reopened = try Outbox(db: temp.db, source: "kitchen-display", clock: ManualClock())
        #expect(try reopened.lastSeq("kitchen") == UInt64(last))
        let noSeq = #expect(throws: (any Error).self) { _ = try appendOrder(reopened, temp.db, 3) }
        #expect("\(noSeq.map { "\($0)" } ?? "")".contains("every seq a key holds"))
        #expect(try temp.db.query("SELECT COUNT(*) AS n FROM outbox").first?.int("n") == 2)
    }

    @Test("events appended in transactions get contiguous sequence numbers per stream")
    func contiguousPerStream() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let clock = ManualClock()
        let outbox = try Outbox(db: temp.db, source: "order-service", clock: clock)
        var seen: [String] = []
        try temp.db.transaction {
            for (index, stream) in ["order", "kitchen", "order", "order", "kitchen"].enumerated() {
                clock.advance(seconds: 1)
                let envelope = try outbox.append(.kitchenStarted, topic: "\(stream).x.", stream: stream, body: Self.body(index))
                #expect(envelope.source == "order-service")
                #expect(envelope.time == clock.now())
                seen.append("\(envelope.stream)#\(envelope.seq)")
            }
        }
        #expect(seen == ["order#1", "kitchen#1", "order#2", "order#3", "kitchen#2"])
        #expect(try outbox.lastSeqs() == ["order": 3, "kitchen": 2])
        #expect(try outbox.lastSeq("order") == 3)
        #expect(try outbox.lastSeq("never") == 0)
        #expect(try outbox.pendingCount() == 5)
    }

    @Test("a rolled-back transaction leaves no event and consumes no sequence number")
    func rollbackConsumesNothing() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let outbox = try Outbox(db: temp.db, source: "order-service", clock: ManualClock())
        _ = try appendOrder(outbox, temp.db, 1)
        #expect(throws: Boom.self) {
            try temp.db.transaction {
                try outbox.append(.kitchenReady, topic: "kitchen.ready.macs.", stream: "kitchen", body: Self.body(2))
                try outbox.append(.kitchenReady, topic: "kitchen.ready.macs.", stream: "kitchen", body: Self.body(3))
                throw Boom()
            }
        }
        #expect(try outbox.lastSeq("kitchen") == 1)
        #expect(try outbox.pendingCount() == 1)
        #expect(try appendOrder(outbox, temp.db, 4).seq == 2, "the next event takes the seq the rolled-back one would have had")
        #expect(try flushAll(outbox).map(\.seq) == [1, 2])
    }

    @Test("a transaction's events reach the table at its commit, several rows a statement, without those of a savepoint that rolled back", arguments: [1, 7, 8, 9, 19, 40])
    func rowsWrittenAtCommit(_ count: Int) throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let outbox = try Outbox(db: temp.db, source: "order-service", clock: ManualClock())
        var kept: [Envelope] = []
        try temp.db.transaction {
            for n in 0..<count {
                let stream = n % 3 == 0 ? "order" : "kitchen"
                kept.append(try outbox.append(.kitchenReady, topic: "\(stream).ready.macs.", stream: stream, body: Self.body(n)))
                // Nothing is in the table until the transaction commits.
                #expect(try temp.db.query("SELECT COUNT(*) AS n FROM outbox").first?.int("n") == 0)
            }
            // A savepoint between them that rolls back: its events never reach the table.
            #expect(throws: Boom.self) {
                try temp.db.transaction {
                    _ = try outbox.append(.kitchenReady, topic: "kitchen.ready.macs.", stream: "kitchen", body: Self.body(999))
                    throw Boom()
                }
            }
            kept.append(try outbox.append(.kitchenReady, topic: "kitchen.ready.macs.", stream: "kitchen", body: Self.body(count)))
        }
        let rows = try temp.db.query("SELECT stream, seq, topic, envelope FROM outbox ORDER BY stream, seq")
        let stored = try rows.map { try Wire.decodeEnvelope($0.data("envelope")) }
        #expect(stored == kept.sorted { ($0.stream, $0.seq) < ($1.stream, $1.seq) })
        #expect(rows.map { $0.string("topic") } == stored.map { "\($0.stream).ready.macs." })
        // Each stream numbered 1… without a gap: the rolled-back event's seq went to the next one.
        for stream in ["order", "kitchen"] {
            let seqs = stored.filter { $0.stream == stream }.map(\.seq)
            #expect(seqs == (0..<seqs.count).map { UInt64($0 + 1) })
        }
        #expect(try outbox.replay(stream: "kitchen", fromSeq: 1, limit: 100).map(\.seq) == stored.filter { $0.stream == "kitchen" }.map(\.seq))
    }

    @Test("seqs stay contiguous and lastSeq exact through runs of one stream, savepoints kept and rolled back, and the commit")
    func seqsThroughSavepoints() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let outbox = try Outbox(db: temp.db, source: "order-service", clock: ManualClock())
        func add(_ stream: String) throws -> UInt64 {
            try outbox.append(.kitchenReady, topic: "\(stream).x.", stream: stream, body: Self.body(0)).seq
        }
        try temp.db.transaction {
            #expect(try [add("a"), add("a"), add("a")] == [1, 2, 3])
            #expect(try outbox.lastSeq("a") == 3 && outbox.lastSeq("b") == 0)
            #expect(throws: Boom.self) {
                try temp.db.transaction {
                    #expect(try [add("a"), add("b"), add("b"), add("a")] == [4, 1, 2, 5])
                    throw Boom()
                }
            }
            #expect(try outbox.lastSeq("a") == 3 && outbox.lastSeq("b") == 0, "the savepoint's seqs are free again")
            #expect(throws: Boom.self) {
                try temp.db.transaction {
                    #expect(try add("a") == 4)
                    throw Boom()
                }
            }
            #expect(try outbox.lastSeq("a") == 3)
            let released = try temp.db.transaction { try [add("b"), add("a"), add("a")] }
            #expect(released == [1, 4, 5])
            #expect(try outbox.lastSeq("a") == 5 && outbox.lastSeq("b") == 1)
            #expect(try add("b") == 2)
        }
        #expect(try outbox.lastSeqs() == ["a": 5, "b": 2])
        let next = try temp.db.transaction { try [add("a"), add("b")] }
        #expect(next == [6, 3])
        #expect(try flushAll(outbox).map { "\($0.stream)\($0.seq)" } == ["a1", "a2", "a3", "b1", "a4", "a5", "b2", "a6", "b3"])
        #expect(try temp.db.query("SELECT stream || seq AS s FROM outbox ORDER BY id").map { $0.string("s") }
                == ["a1", "a2", "a3", "a4", "a5", "a6", "b1", "b2", "b3"])
    }

    @Test("when the rows cannot be written at commit, the whole transaction rolls back and nothing is announced")
    func rowsFailAtCommit() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: ManualClock())
        _ = try appendOrder(outbox, temp.db, 1)
        _ = try flushAll(outbox)
        try temp.db.execute("CREATE TABLE state (n INTEGER)")
        // A row already holding the next event's key (as no outbox writes it): its insert fails.
        try temp.db.run("INSERT INTO outbox (id, stream, seq, topic, envelope, created_ms) SELECT id + 1, stream, seq + 1, topic, envelope, created_ms FROM outbox")
        #expect(throws: SQLiteError.self) {
            try temp.db.transaction {
                try temp.db.run("INSERT INTO state (n) VALUES (1)")
                _ = try outbox.append(.kitchenReady, topic: "kitchen.ready.macs.", stream: "kitchen", body: Self.body(2))
            }
        }
        #expect(try temp.db.query("SELECT COUNT(*) AS n FROM state").first?.int("n") == 0, "the change rolled back with its event")
        #expect(try outbox.lastSeq("kitchen") == 1)
        #expect(try flushAll(outbox).isEmpty)
        #expect(!temp.db.inTransaction)
    }

    @Test("flush sends every event in sequence order, exactly once")
    func flushOnce() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: ManualClock())
        for n in 1...5 { _ = try appendOrder(outbox, temp.db, n) }
        let first = try flushAll(outbox)
        #expect(first == (1...5).map { Sent(topic: "kitchen.ready.macs.", stream: "kitchen", seq: UInt64($0)) })
        #expect(try outbox.pendingCount() == 0)
        #expect(try flushAll(outbox).isEmpty, "a second flush sends nothing again")
        _ = try appendOrder(outbox, temp.db, 6)
        #expect(try flushAll(outbox).map(\.seq) == [6])
    }

    @Test("the stored envelope is exactly what the append returned")
    func storedEnvelope() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: ManualClock())
        let appended = try appendOrder(outbox, temp.db, 1)
        var sent: [Envelope] = []
        try outbox.flush { _, data in sent.append(try Wire.decodeEnvelope(data)) }
        #expect(sent == [appended])
    }

    @Test("a send that fails stops the flush; the next flush resumes at the failed event")
    func flushResumesAfterFailure() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: ManualClock())
        for n in 1...4 { _ = try appendOrder(outbox, temp.db, n) }
        var delivered: [UInt64] = []
        #expect(throws: Boom.self) {
            try outbox.flush { _, data in
                let seq = try Wire.decodeEnvelope(data).seq
                if seq == 3 { throw Boom() }
                delivered.append(seq)
            }
        }
        #expect(delivered == [1, 2])
        #expect(try outbox.pendingCount() == 2)
        #expect(try flushAll(outbox).map(\.seq) == [3, 4])
    }

    @Test("flush honours the batch size and sends the rest next time")
    func batches() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: ManualClock())
        for n in 1...5 { _ = try appendOrder(outbox, temp.db, n) }
        var sent: [UInt64] = []
        try outbox.flush(batch: 2) { _, data in sent.append(try Wire.decodeEnvelope(data).seq) }
        #expect(sent == [1, 2])
        try outbox.flush(batch: 2) { _, data in sent.append(try Wire.decodeEnvelope(data).seq) }
        try outbox.flush(batch: 2) { _, data in sent.append(try Wire.decodeEnvelope(data).seq) }
        #expect(sent == [1, 2, 3, 4, 5])
    }

    @Test("after a crash between commit and send, the reopened outbox sends what was not sent, and only that")
    func crashRecovery() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: ManualClock())
        for n in 1...2 { _ = try appendOrder(outbox, temp.db, n) }
        #expect(try flushAll(outbox).map(\.seq) == [1, 2])
        try outbox.persistPublished()   // the service's flush timer
        for n in 3...4 { _ = try appendOrder(outbox, temp.db, n) }
        temp.db.close()   // "kill -9": committed, never flushed

        let reopened = try temp.reopen()
        defer { reopened.close() }
        let recovered = try Outbox(db: reopened, source: "kitchen-display", clock: ManualClock())
        #expect(try recovered.pendingCount() == 2)
        #expect(try flushAll(recovered).map(\.seq) == [3, 4])
        #expect(try appendOrder(recovered, reopened, 5).seq == 5, "numbering continues after the restart")
        #expect(try flushAll(recovered).map(\.seq) == [5])
    }

    @Test("a crash after sending and before the published cursor was stored sends again: at least once, never lost")
    func resendAfterCrashBeforePersist() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: ManualClock())
        for n in 1...3 { _ = try appendOrder(outbox, temp.db, n) }
        #expect(try flushAll(outbox).map(\.seq) == [1, 2, 3])
        temp.db.close()   // "kill -9" before the flush timer stored how far it got
        let reopened = try temp.reopen()
        defer { reopened.close() }
        let recovered = try Outbox(db: reopened, source: "kitchen-display", clock: ManualClock())
        // The same events, same ids and sequence numbers: consumers drop them as duplicates.
        #expect(try flushAll(recovered).map(\.seq) == [1, 2, 3])
        try recovered.persistPublished()
        #expect(try recovered.pendingCount() == 0)
    }

    @Test("nothing is published from inside an open transaction")
    func noFlushInsideTransaction() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: ManualClock())
        var sent: [UInt64] = []
        try temp.db.transaction {
            _ = try appendOrder(outbox, temp.db, 1)
            try outbox.flush { _, data in sent.append(try Wire.decodeEnvelope(data).seq) }
        }
        #expect(sent.isEmpty)
        try outbox.flush { _, data in sent.append(try Wire.decodeEnvelope(data).seq) }
        #expect(sent == [1])
    }

    @Test("replay serves a stream from a sequence number, in order, up to a limit", arguments: [
        (UInt64(1), 100, [UInt64(1), 2, 3, 4, 5]),
        (0, 100, [1, 2, 3, 4, 5]),
        (3, 100, [3, 4, 5]),
        (2, 2, [2, 3]),
        (6, 100, []),
    ] as [(UInt64, Int, [UInt64])])
    func replay(fromSeq: UInt64, limit: Int, expected: [UInt64]) throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: ManualClock())
        for n in 1...5 { _ = try appendOrder(outbox, temp.db, n) }
        _ = try temp.db.transaction { try outbox.append(.orderReady, topic: "order.ready.macs.", stream: "order", body: Samples.body(for: .orderReady)) }
        let events = try outbox.replay(stream: "kitchen", fromSeq: fromSeq, limit: limit)
        #expect(events.map(\.seq) == expected)
        for event in events {
            #expect(event.topic == "kitchen.ready.macs.")
            #expect(try Wire.decodeEnvelope(event.envelope).seq == event.seq)
        }
    }

    @Test("prune drops old published events but keeps each stream's newest, so numbering continues")
    func prune() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let clock = ManualClock()
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: clock)
        for n in 1...3 { _ = try appendOrder(outbox, temp.db, n) }
        _ = try flushAll(outbox)
        _ = try appendOrder(outbox, temp.db, 4)  // not yet published: never pruned
        clock.advance(seconds: 8 * 24 * 3600)
        try outbox.prune(before: clock.now().adding(seconds: -7 * 24 * 3600))
        #expect(try outbox.replay(stream: "kitchen", fromSeq: 3, limit: 10).map(\.seq) == [3, 4])
        #expect((try? outbox.replay(stream: "kitchen", fromSeq: 1, limit: 10)) == nil, "1 and 2 were pruned: replay.pruned")
        #expect(try appendOrder(outbox, temp.db, 5).seq == 5)
        #expect(try flushAll(outbox).map(\.seq) == [4, 5])
    }

    @Test("appending outside a transaction is a programming error")
    func appendNeedsTransaction() async {
        await #expect(processExitsWith: .failure) {
            let folder = try TemporaryDirectory()
            let db = try Database(path: folder.path("outbox.sqlite"))
            let outbox = try Outbox(db: db, source: "x", clock: SystemClock())
            try outbox.append(.heartbeat, topic: "heartbeat.x.", stream: "heartbeat",
                              body: .heartbeat(Heartbeat(service: "x", streams: [:], replayEndpoint: "")))
        }
    }
}
