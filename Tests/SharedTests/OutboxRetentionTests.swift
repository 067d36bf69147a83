import Foundation
import Messages
import SQLite
import ServiceRuntime
import Testing
import TestSupport

/// The outbox's retention (issue 28/30: disk bounded by time): published events past the replay
/// window are pruned in small batches, never what is unsent, never a stream's newest, never what a
/// replaying consumer still needs; a replay of a pruned range is answered `replay.pruned`.
@Suite("Outbox retention")
struct OutboxRetentionTests {
    static let week = 7.0 * 86_400

    func append(_ outbox: Outbox, _ db: Database, count: Int, stream: String = "kitchen") throws {
        for n in 1...count {
            _ = try db.transaction {
                try outbox.append(.kitchenReady, topic: Topic.kitchen(event: "ready", cafe: "macs"), stream: stream, body: OutboxTests.body(n))
            }
        }
    }

    func publishAll(_ outbox: Outbox) throws {
        try outbox.flush(batch: 10_000) { _, _ in }
    }

    func seqs(_ db: Database, stream: String = "kitchen") throws -> [UInt64] {
        try db.query("SELECT seq FROM outbox WHERE stream = ? ORDER BY seq", stream).map { UInt64($0.int64("seq")) }
    }

    @Test("published events past the window go in batches; the unsent and each stream's newest stay")
    func prunesInBatches() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let clock = ManualClock()
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: clock)
        try append(outbox, temp.db, count: 10)
        try publishAll(outbox)
        try append(outbox, temp.db, count: 1)  // seq 11, committed and not sent
        clock.advance(seconds: Self.week)
        #expect(try outbox.pruneBatch(windowSeconds: Self.week, limit: 4) == 0, "exactly one window old is still kept")
        clock.advance(seconds: 0.001)
        #expect(try outbox.pruneBatch(windowSeconds: Self.week, limit: 4) == 4)
        #expect(try outbox.pruneBatch(windowSeconds: Self.week, limit: 4) == 4)
        #expect(try outbox.pruneBatch(windowSeconds: Self.week, limit: 4) == 1)
        #expect(try outbox.pruneBatch(windowSeconds: Self.week, limit: 4) == 0)
        #expect(try seqs(temp.db) == [10, 11])
        #expect(try outbox.oldestSeq("kitchen") == 10)
        // Numbering goes on, and the unsent event is still sent.
        try append(outbox, temp.db, count: 1)
        var sent: [UInt64] = []
        try outbox.flush { _, frame in sent.append(try Wire.decodeEnvelope(frame).seq) }
        #expect(sent == [11, 12])
    }

    @Test("a consumer replaying holds back pruning from where it reads, until it has been silent 10 minutes")
    func replayingConsumerHoldsBack() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let clock = ManualClock()
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: clock)
        try append(outbox, temp.db, count: 10)
        try publishAll(outbox)
        clock.advance(seconds: Self.week + 1)
        outbox.noteReplay(stream: "kitchen", fromSeq: 4, consumer: "order-service")
        outbox.noteReplay(stream: "other", fromSeq: 1, consumer: "order-service")
        #expect(try outbox.pruneBatch(windowSeconds: Self.week, limit: 500) == 3)
        #expect(try seqs(temp.db) == Array(4...10))
        #expect(outbox.replayingConsumers == 2)
        clock.advance(seconds: ReplayingConsumers.memorySeconds)
        #expect(try outbox.pruneBatch(windowSeconds: Self.week, limit: 500) == 0, "heard exactly 10 minutes ago: still remembered")
        clock.advance(seconds: 1)
        #expect(try outbox.pruneBatch(windowSeconds: Self.week, limit: 500) == 6)
        #expect(try seqs(temp.db) == [10])
        #expect(outbox.replayingConsumers == 0)
    }

    @Test("a consumer slower than its publisher holds pruning back for one more window at most")
    func slowConsumerHeldOneWindow() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let clock = ManualClock()
        let outbox = try Outbox(db: temp.db, source: "region-monitor", clock: clock)
        try append(outbox, temp.db, count: 10)
        try publishAll(outbox)
        clock.advance(seconds: 2 * Self.week)
        outbox.noteReplay(stream: "kitchen", fromSeq: 2, consumer: "order-service")
        #expect(try outbox.pruneBatch(windowSeconds: Self.week, limit: 500) == 1, "two windows old: only what it is past")
        clock.advance(seconds: 0.001)
        outbox.noteReplay(stream: "kitchen", fromSeq: 2, consumer: "order-service")
        #expect(try outbox.pruneBatch(windowSeconds: Self.week, limit: 500) == 8, "older than two windows: pruned whatever it needs")
        #expect(try seqs(temp.db) == [10])
        #expect(try outbox.oldestSeq("kitchen") == 10)
    }

    @Test("the consumers remembered are bounded: the longest silent is forgotten first")
    func replayingConsumersBounded() {
        var consumers = ReplayingConsumers()
        let t0 = Timestamp(milliseconds: 1_000_000)
        for n in 0..<(ReplayingConsumers.limit + 5) {
            consumers.note(stream: "order", fromSeq: UInt64(n + 1), consumer: "c\(n)", now: t0.adding(seconds: Double(n) / 1000))
        }
        #expect(consumers.count == ReplayingConsumers.limit)
        #expect(consumers.floor(of: "order", now: t0.adding(seconds: 2)) == 6, "the five heard first were forgotten")
        #expect(consumers.floor(of: "kitchen", now: t0.adding(seconds: 2)) == nil)
    }

    @Test("replay of a pruned range answers replay.pruned with the oldest seq kept, from the service's thread and the reader's")
    func replayPrunedIsTyped() throws {
        let temp = try TemporaryDatabase()
        defer { temp.finish() }
        let clock = ManualClock()
        let outbox = try Outbox(db: temp.db, source: "kitchen-display", clock: clock)
        try append(outbox, temp.db, count: 6)
        try publishAll(outbox)
        clock.advance(seconds: Self.week + 1)
        _ = try outbox.pruneBatch(windowSeconds: Self.week, limit: 3)
        #expect(try outbox.oldestSeq("kitchen") == 4)
        let reader = try OutboxReader(path: temp.db.path)
        defer { reader.close() }
        for fromSeq: UInt64 in [0, 1, 3] {
            let refusals = [
                captured { _ = try outbox.replay(stream: "kitchen", fromSeq: fromSeq, limit: 10) },
                captured { _ = try reader.page(stream: "kitchen", fromSeq: fromSeq, limit: 10) },
            ]
            for refusal in refusals {
                let error = try #require(refusal as? ServiceError)
                #expect(error.code == "replay.pruned")
                #expect(error.details == ["oldestSeq": "4"])
                #expect(ReplayPruned.oldestSeq(in: error) == 4)
            }
        }
        #expect(try outbox.replay(stream: "kitchen", fromSeq: 4, limit: 10).map(\.seq) == [4, 5, 6])
        #expect(try reader.page(stream: "kitchen", fromSeq: 5, limit: 10).events.map(\.seq) == [5, 6])
        #expect(try outbox.replay(stream: "unknown", fromSeq: 1, limit: 10).isEmpty, "a stream never written is empty, not pruned")
        // A malformed refusal names no seq.
        #expect(ReplayPruned.oldestSeq(in: ServiceError(code: "replay.pruned", message: "", details: ["oldestSeq": "-1"])) == nil)
        #expect(ReplayPruned.oldestSeq(in: ServiceError(code: "replay.pruned", message: "", details: nil)) == nil)
        #expect(ReplayPruned.oldestSeq(in: ServiceError(code: "request.busy", message: "", details: ["oldestSeq": "4"])) == nil)
    }

    func captured(_ body: () throws -> Void) -> Error? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }
}
