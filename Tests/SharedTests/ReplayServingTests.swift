import Foundation
import Messages
import SQLite
@testable import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// `replay` is served off the reactor (issue 28): pages are read by the replay worker on its own
/// connection, other requests are answered while replays wait, and past the queue's bound a
/// replay is refused `request.busy` at once, counted and logged as a summary.
@Suite("Replay served off the reactor")
struct ReplayServingTests {
    /// A request server over a real outbox file, its reactor on a thread of its own.
    final class Harness: @unchecked Sendable {
        let temp: TemporaryDirectory
        let context: Context
        let db: Database
        let server: RequestServer
        let endpoint: String
        let reactor: Reactor
        private let shutdown = ShutdownSignal()
        private let done = DispatchSemaphore(value: 0)

        init(events: Int, queueLimit: Int = RequestServer.replayQueueLimit, logger: Logger = silentLogger) throws {
            temp = try TemporaryDirectory()
            context = try Context()
            db = try Database(path: temp.path("order-service.sqlite"))
            let outbox = try Outbox(db: db, source: "order-service", clock: SystemClock())
            try db.transaction {
                for n in 0..<events {
                    let body = EventBody.kitchen(KitchenEvent(orderId: "ord-\(n)", cafeId: "macs", ticketId: nil, station: nil, at: Samples.time))
                    try outbox.append(.kitchenReady, topic: Topic.kitchen(event: "ready", cafe: "macs"), stream: "order", body: body)
                }
            }
            server = try RequestServer(context: context, listen: uniqueInproc(), advertise: "", service: "order-service", outbox: outbox,
                                       maxMessageBytes: 1_048_576, security: .plain(logger: logger), logger: logger, replayQueueLimit: queueLimit)
            endpoint = server.advertisedEndpoint
            reactor = Reactor(shutdown: shutdown, logger: logger)
            server.attach(to: reactor)
            let thread = Thread { [self] in
                reactor.run()
                done.signal()
            }
            thread.start()
        }

        func client() -> RequestClient { RequestClient(context: context, endpoint: endpoint, timeoutMilliseconds: 10_000) }

        /// A REQ socket that sends without waiting for the reply.
        func rawClient() throws -> Socket {
            let socket = try Socket(context, .req)
            try socket.setLinger(milliseconds: 0)
            try socket.connect(endpoint)
            return socket
        }

        func stop() {
            shutdown.request()
            done.wait()
            // Closed where its sockets were made (here), once the reactor has stopped using them.
            server.close()
            db.close()
            temp.remove()
        }
    }

    static func replayFrame(from seq: UInt64, limit: Int = 1_000) -> Data {
        Wire.encode(Request(op: Op.replay, body: ReplayRequest(stream: "order", fromSeq: seq, limit: limit)))
    }

    @Test("pages of 1,000 cover the stream exactly once, in order, with the stored envelopes and the last seq")
    func completeAcrossPages() throws {
        let harness = try Harness(events: 2_500)
        defer { harness.stop() }
        let client = harness.client()
        defer { client.close() }
        var seqs: [UInt64] = []
        var from: UInt64 = 1
        while true {
            let page = try client.call(Op.replay, ReplayRequest(stream: "order", fromSeq: from, limit: 1_000), as: ReplayReply.self)
            #expect(page.lastSeq == 2_500 && page.stream == "order")
            guard let last = page.events.last else { break }
            #expect(page.events.count <= 1_000)
            for event in page.events {
                #expect(event.envelope.stream == "order" && event.topic == Topic.kitchen(event: "ready", cafe: "macs"))
                if case .kitchen(let body) = event.envelope.body { #expect(body.orderId == "ord-\(event.envelope.seq - 1)") } else { Issue.record("not a kitchen event") }
            }
            seqs += page.events.map(\.envelope.seq)
            from = last.envelope.seq + 1
        }
        #expect(seqs == Array(1...2_500))
        // A stream never written: nothing, last seq 0.
        let other = try client.call(Op.replay, ReplayRequest(stream: "nobody", fromSeq: 1), as: ReplayReply.self)
        #expect(other.events.isEmpty && other.lastSeq == 0)
        #expect(harness.server.replayWorker != nil, "served by the worker, not inline")
    }

    @Test("while replays wait for the worker, other requests are answered; past the bound a replay is request.busy with retryAfterMs, counted and summarized in the log")
    func backlogAndBusy() throws {
        let sink = CapturingSink()
        let harness = try Harness(events: 1_200, queueLimit: 2, logger: sink.logger(minimum: .info))
        defer { harness.stop() }
        let worker = try #require(harness.server.replayWorker)
        let gate = DispatchSemaphore(value: 0), entered = DispatchSemaphore(value: 0)
        worker.pageGate = {
            entered.signal()
            gate.wait()
        }

        // The first replay is taken by the worker and held there; two more fill the queue.
        let waiting = try (0..<3).map { _ in try harness.rawClient() }
        defer { waiting.forEach { $0.close() } }
        try waiting[0].send(Self.replayFrame(from: 1))
        entered.wait()
        try waiting[1].send(Self.replayFrame(from: 1))
        try waiting[2].send(Self.replayFrame(from: 1_001))
        let busyClient = harness.client()
        defer { busyClient.close() }
        // Ordering, not time: the health below is sent after these were queued.
        while worker.queued < 2 { Thread.sleep(forTimeInterval: 0.01) }

        // Health is answered while three replays are unanswered.
        let health = try busyClient.call(Op.health, Empty(), as: HealthStatus.self)
        #expect(health.details["replay.queued"] == "2")
        for socket in waiting { #expect(try socket.receiveMultipart(timeoutMilliseconds: 0) == nil, "no replay answered while the worker is held") }

        // The queue is full: refused at once, with a retry hint, many times over.
        for _ in 0..<30 {
            #expect(throws: ServiceError.self) { try busyClient.call(Op.replay, ReplayRequest(stream: "order", fromSeq: 1), as: ReplayReply.self) }
        }
        let refusal = try Wire.decodeReply(try busyClient.send(raw: Self.replayFrame(from: 1)), body: ReplayReply.self)
        let error = try #require(refusal.error, "a replay past the bound was answered")
        #expect(error.code == ErrorCode.busy.rawValue && Int(error.details?["retryAfterMs"] ?? "") ?? 0 > 0)

        // Released: every queued replay is answered, each with its own page.
        for _ in 0..<3 { gate.signal() }
        worker.pageGate = nil
        var counts: [Int] = []
        for socket in waiting {
            let reply = try #require(try socket.receiveMultipart(timeoutMilliseconds: 10_000)?.last)
            let page = try Wire.decodeReply(reply, body: ReplayReply.self).get()
            counts.append(page.events.count)
            #expect(page.lastSeq == 1_200)
        }
        #expect(counts == [1_000, 1_000, 200])
        let after = try busyClient.call(Op.health, Empty(), as: HealthStatus.self)
        #expect(after.details["replay.busy"] == "31" && after.details["replay.served"] == "3")
        // 31 refusals, one log line (the first); the rest wait for the 10 s summary.
        let refused = sink.lines.filter { $0.contains("request.busy") }
        #expect(refused.count == 1, "\(refused)")
    }

    @Test("a request without REP's envelope delimiter is dropped and counted; a DEALER's correlation frames come back with its reply")
    func envelopes() throws {
        let harness = try Harness(events: 3)
        defer { harness.stop() }
        let dealer = try Socket(harness.context, .dealer)
        defer { dealer.close() }
        try dealer.setLinger(milliseconds: 0)
        try dealer.connect(harness.endpoint)
        try dealer.send(multipart: [Wire.encode(Request(op: Op.health, body: Empty()))])
        try dealer.send(multipart: [Data("c-7".utf8), Data(), Self.replayFrame(from: 2)])
        let reply = try #require(try dealer.receiveMultipart(timeoutMilliseconds: 10_000))
        #expect(reply.count == 3 && reply[0] == Data("c-7".utf8) && reply[1].isEmpty)
        #expect(try Wire.decodeReply(reply[2], body: ReplayReply.self).get().events.map(\.envelope.seq) == [2, 3])
        let client = harness.client()
        defer { client.close() }
        #expect(try client.call(Op.health, Empty(), as: HealthStatus.self).details["requests.malformedEnvelope"] == "1")
    }
}
