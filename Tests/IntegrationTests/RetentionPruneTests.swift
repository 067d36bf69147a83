import Foundation
import Messages
import SQLite
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// Retention through a real executable: kitchen-display started on a data folder whose outbox
/// and dedupe ledger hold rows past their retention (written with a clock set back, as a week of
/// traffic would have left them) prunes them on its timer, a batch at a time, says so in health,
/// and answers a replay of the pruned range `replay.pruned` with the oldest seq it keeps.
@Suite("Retention in a real process")
struct RetentionPruneTests {
    @Test("kitchen-display prunes its outbox and ledger on its timer and answers replay.pruned")
    func servicePrunes() throws {
        let children = try ChildProcesses(prefix: "cafe-retention")
        defer { children.stop() }
        let data = try children.folder("data")
        // Six kitchen events published 8 days ago, and an order event's id applied 9 days ago.
        let db = try Database(path: data.appendingPathComponent("kitchen-display.sqlite").path)
        let clock = ManualClock(SystemClock().now().adding(seconds: -9 * 86_400))
        let context = try Context()
        let follower = try StreamFollower(db: db, logger: Logger(service: "seed", instance: "seed", minimum: .error), context: context,
                                          durableStreams: ["order"], prefixes: ["order."], clock: clock, apply: { _, _ in }, deadLetter: { _, _, _, _ in })
        let placed = Envelope(type: .orderPlaced, source: "order-service", stream: "order", seq: 1, time: clock.now(),
                              body: .order(OrderEvent(order: RetentionSamples.order, previous: nil, reason: nil, at: clock.now())))
        #expect(follower.receive(topic: "order.placed.caffe-macs.", envelope: placed, raw: Wire.encode(placed)) == .applied)
        follower.close()
        clock.advance(seconds: 86_400)
        let outbox = try Outbox(db: db, source: "kitchen-display", clock: clock)
        for n in 1...6 {
            _ = try db.transaction {
                try outbox.append(.kitchenReady, topic: "kitchen.ready.caffe-macs.", stream: "kitchen",
                                  body: .kitchen(KitchenEvent(orderId: "ord-\(n)", cafeId: "caffe-macs", ticketId: nil, station: nil, at: clock.now())))
            }
        }
        try outbox.flush { _, _ in }
        try outbox.persistPublished()
        db.close()

        let ports = try LoopbackPorts.free(3)
        let endpoint = "tcp://127.0.0.1:\(ports[0])"
        try children.start("kitchen-display", executable: "kitchen-display",
                           arguments: ["--data-dir", data.path, "--listen", endpoint, "--bus-pub", "tcp://127.0.0.1:\(ports[1])",
                                       "--bus-sub", "tcp://127.0.0.1:\(ports[2])", "--prune-interval-seconds", "1"],
                           environment: environmentWithoutCafeVariables())
        let client = RequestClient(context: context, endpoint: endpoint, timeoutMilliseconds: 1000)
        defer { client.close() }
        var details: [String: String] = [:]
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            #expect(children.isRunning("kitchen-display"), "\(children.log("kitchen-display").suffix(2000))")
            if let health = try? client.call(Op.health, Empty(), as: HealthStatus.self) {
                details = health.details
                if details["pruned.outbox"] == "5", details["pruned.seenEvents"] == "1" { break }
            }
            usleep(100_000)
        }
        #expect(details["pruned.outbox"] == "5", "the newest is kept: \(details)")
        #expect(details["pruned.seenEvents"] == "1", "\(details)")
        let refusal = #expect(throws: ServiceError.self) {
            _ = try client.call(Op.replay, ReplayRequest(stream: "kitchen", fromSeq: 1, limit: 10), as: ReplayReply.self)
        }
        #expect(refusal?.code == "replay.pruned" && refusal?.details?["oldestSeq"] == "6", "\(String(describing: refusal))")
        let kept = try client.call(Op.replay, ReplayRequest(stream: "kitchen", fromSeq: 6, limit: 10), as: ReplayReply.self)
        #expect(kept.events.map(\.envelope.seq) == [6])
    }
}

/// An order as order-service announces it, enough for a ledger row.
enum RetentionSamples {
    static var order: OrderSnapshot {
        OrderSnapshot(orderId: "ord-1", cafeId: "caffe-macs", cafeName: "Caffè Macs", timeZone: "America/Los_Angeles", currency: "USD", channel: .kiosk,
                      userId: nil, deviceId: "phone-1", state: .placed, lines: [], total: 0, pickupStart: Timestamp(milliseconds: 0),
                      pickupEnd: Timestamp(milliseconds: 0), placedAt: Timestamp(milliseconds: 0), customerHere: false)
    }
}
