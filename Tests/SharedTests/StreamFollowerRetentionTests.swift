import Foundation
import Messages
import SQLite
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// The consumer's side of retention: applied event ids are remembered for their stream's
/// retention and pruned in batches; a stream whose handling is idempotent keeps none; and a
/// publisher that pruned what the consumer still needed answers `replay.pruned`, which the
/// consumer takes as a counted, logged loss, going on from the oldest event kept.
@Suite("Stream follower retention")
struct StreamFollowerRetentionTests {
    func follower(_ harness: FollowerHarness, clock: ManualClock) throws -> StreamFollower {
        try StreamFollower(db: harness.db, logger: silentLogger, context: harness.context, durableStreams: ["order"], prefixes: ["order."], clock: clock,
                           apply: { _, envelope in
                               try harness.db.run("INSERT INTO effects VALUES (?, ?, ?, ?)", envelope.source, envelope.stream, envelope.seq, "x")
                           },
                           deadLetter: { _, _, _, _ in })
    }

    func seenCount(_ db: Database) throws -> Int {
        try db.query("SELECT COUNT(*) AS n FROM consumer_seen_events").first?.int("n") ?? -1
    }

    func deliver(_ follower: StreamFollower, _ envelope: Envelope) -> StreamFollower.Outcome {
        follower.receive(topic: orderTopic, envelope: envelope, raw: Wire.encode(envelope))
    }

    @Test("applied ids are kept for the retention, then pruned in batches")
    func idsExpire() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let clock = ManualClock()
        let follower = try follower(harness, clock: clock)
        defer { follower.close() }
        follower.ledger.retentionSeconds = 60
        for seq in 1...3 { #expect(deliver(follower, orderEvent(UInt64(seq))) == .applied) }
        #expect(try seenCount(harness.db) == 3)
        clock.advance(seconds: 60)
        #expect(try follower.pruneSeenEvents(limit: 2) == 0, "exactly at the retention: still kept")
        clock.advance(seconds: 0.001)
        #expect(try follower.pruneSeenEvents(limit: 2) == 2)
        #expect(try follower.pruneSeenEvents(limit: 2) == 1)
        #expect(try seenCount(harness.db) == 0)
        #expect(deliver(follower, orderEvent(3)) == .duplicate, "the cursor still tells a redelivery")
    }

    @Test("a stream whose ids are not recorded keeps none and is deduped by its cursor")
    func unrecordedStream() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        let follower = try follower(harness, clock: ManualClock())
        defer { follower.close() }
        follower.ledger.unrecordedStreams = ["order"]
        #expect(deliver(follower, orderEvent(1)) == .applied)
        #expect(deliver(follower, orderEvent(2)) == .applied)
        #expect(deliver(follower, orderEvent(2)) == .duplicate)
        #expect(try seenCount(harness.db) == 0)
        #expect(follower.collisionCount == 0, "a passed seq of such a stream is a duplicate, not a collision to check")
        #expect(try harness.effects() == [1, 2])
    }

    @Test("ids stored before version 5 keep their 8 days, counted from when they were applied")
    func migratedIds() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        try harness.db.execute("CREATE TABLE IF NOT EXISTS schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL)")
        try harness.db.execute("""
            CREATE TABLE consumer_cursors (source TEXT NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (source, stream)) WITHOUT ROWID;
            CREATE TABLE consumer_epochs (source TEXT PRIMARY KEY, epoch TEXT NOT NULL) WITHOUT ROWID;
            CREATE TABLE consumer_seen_events (event_id TEXT PRIMARY KEY, at_ms INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE consumer_best_effort (source TEXT NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (source, stream)) WITHOUT ROWID;
            INSERT INTO schema_versions VALUES ('consumer', 4);
            INSERT INTO consumer_seen_events VALUES ('old-1', 1000);
            """)
        let clock = ManualClock(Timestamp(milliseconds: 1000))
        let follower = try follower(harness, clock: clock)
        defer { follower.close() }
        clock.advance(seconds: 8 * 86_400)
        #expect(try follower.pruneSeenEvents(limit: 10) == 0)
        clock.advance(seconds: 0.001)
        #expect(try follower.pruneSeenEvents(limit: 10) == 1)
    }

    @Test("replay.pruned: the consumer counts and logs the loss, goes on from the oldest event kept, and applies the rest once")
    func consumerSkipsPrunedRange() throws {
        let harness = try FollowerHarness()
        defer { harness.finish() }
        // The publisher: a real outbox, six order events published a week and a second ago, the first three pruned.
        let publisherFolder = try TemporaryDirectory()
        let publisherDB = try Database(path: publisherFolder.path("order-service.sqlite"))
        let publisherClock = ManualClock()
        let outbox = try Outbox(db: publisherDB, source: "order-service", clock: publisherClock)
        for seq in 1...6 {
            _ = try publisherDB.transaction { try outbox.append(.orderPlaced, topic: orderTopic, stream: "order", body: orderEvent(UInt64(seq)).body) }
        }
        try outbox.flush { _, _ in }
        publisherClock.advance(seconds: 7 * 86_400 + 1)
        #expect(try outbox.pruneBatch(windowSeconds: 7 * 86_400, limit: 3) == 3)
        let path = publisherDB.path
        let server = RouterServer { router in
            guard let reader = try? OutboxReader(path: path) else { return }
            router.on(Op.replay, ReplayRequest.self) { request in
                let page = try reader.page(stream: request.stream, fromSeq: request.fromSeq, limit: request.limit ?? 500)
                return ReplayReply(stream: request.stream, lastSeq: page.lastSeq,
                                   events: try page.events.map { ReplayedEvent(topic: $0.topic, envelope: try Wire.decodeEnvelope($0.envelope)) })
            }
        }
        let endpoint = try #require(server.start(context: harness.context, bind: Transport.inproc.bindEndpoint()))
        defer { server.stopAndWait() }

        let follower = try follower(harness, clock: ManualClock())
        defer { follower.close() }
        follower.observe(Heartbeat(service: "order-service", streams: ["order": 6], replayEndpoint: endpoint), source: "order-service")
        #expect(follower.lostToPruning == 3)
        #expect(follower.cursor(source: "order-service", stream: "order") == 6)
        #expect(try harness.effects() == [4, 5, 6])
        #expect(server.requests == 2, "the refused replay, then one page from the oldest kept")
        // Nothing more is lost or applied when the publisher announces the same again.
        follower.observe(Heartbeat(service: "order-service", streams: ["order": 6], replayEndpoint: endpoint), source: "order-service")
        #expect(follower.lostToPruning == 3)
        #expect(try harness.effects() == [4, 5, 6])
        publisherDB.close()
    }
}
