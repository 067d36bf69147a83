import Foundation
import Messages
import SQLite
import ServiceRuntime
import Testing
import ZeroMQ

/// Two followers on one database, as a service with two bus consumers has them (order-service:
/// region events on one, kitchen events on the other): each applies its own streams with its own
/// cursors, and a publisher that started over is followed again by both, whichever heard it first.
@Suite("Stream followers sharing a database")
struct StreamFollowerSharingTests {
    /// A follower of `stream` (topics `<stream>.`) that records what it applied.
    static func follower(_ harness: FollowerHarness, _ stream: String, sharing other: StreamFollower? = nil) throws -> StreamFollower {
        let recorder = harness.recorder
        return try StreamFollower(db: harness.db, logger: silentLogger, context: harness.context, durableStreams: [stream], prefixes: ["\(stream)."],
                                  sharing: other,
                                  apply: { _, envelope in recorder.applied.append("\(envelope.stream)#\(envelope.seq)") },
                                  deadLetter: { topic, envelope, _, error in recorder.deadLetters.append((topic, envelope?.seq, "\(error)")) })
    }

    static func deliver(_ follower: StreamFollower, _ envelope: Envelope) -> StreamFollower.Outcome {
        follower.receive(topic: "\(envelope.stream).placed", envelope: envelope, raw: Wire.encode(envelope))
    }

    static func heartbeat(_ epoch: String, streams: [String: UInt64] = [:]) -> Heartbeat {
        Heartbeat(service: "order-service", streams: streams, replayEndpoint: "inproc://nobody-\(epoch)", epoch: epoch)
    }

    @Test("each follower applies and reports only its own streams; a restart of both reads the same cursors")
    func ownStreams() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let first = try Self.follower(harness, "order")
        let second = try Self.follower(harness, "menu", sharing: first)
        #expect([1, 2].map { Self.deliver(first, orderEvent($0)) } == [.applied, .applied])
        let menu = orderEvent(1, stream: "menu")
        #expect(Self.deliver(second, menu) == .applied)
        #expect(Self.deliver(second, menu) == .duplicate)
        #expect(first.cursorSummary == ["order-service/order": 2])
        #expect(second.cursorSummary == ["order-service/menu": 1])
        #expect(harness.recorder.applied == ["order#1", "order#2", "menu#1"])
        first.close(); second.close()
        let reopened = try Self.follower(harness, "order")
        let reopenedSecond = try Self.follower(harness, "menu", sharing: reopened)
        #expect(reopened.cursor(source: "order-service", stream: "order") == 2)
        #expect(reopenedSecond.cursor(source: "order-service", stream: "menu") == 1)
    }

    @Test("a publisher that started over resets both followers' cursors at once, whichever hears it first, in memory and on disk")
    func startedOverResetsBoth() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let first = try Self.follower(harness, "order")
        let second = try Self.follower(harness, "menu", sharing: first)
        first.observe(Self.heartbeat("one"), source: "order-service")
        second.observe(Self.heartbeat("one"), source: "order-service")
        for seq in UInt64(1)...3 {
            _ = Self.deliver(first, orderEvent(seq))
            _ = Self.deliver(second, orderEvent(seq, stream: "menu"))
        }
        // Only the second follower hears the new epoch before its publisher's seq 1 reaches the first.
        second.observe(Self.heartbeat("two", streams: ["order": 0]), source: "order-service")
        #expect(first.cursor(source: "order-service", stream: "order") == 0)
        #expect(second.cursor(source: "order-service", stream: "menu") == 0)
        #expect(Self.deliver(first, orderEvent(1, orderId: "new-1")) == .applied, "not taken for a duplicate")
        // The same heartbeat reaching the first follower later resets nothing more.
        first.observe(Self.heartbeat("two", streams: ["order": 1]), source: "order-service")
        #expect(first.cursor(source: "order-service", stream: "order") == 1)
        let reopened = try Self.follower(harness, "menu")
        #expect(reopened.cursor(source: "order-service", stream: "menu") == 0, "the reset of the stream the other follower owns is stored")
    }
}
