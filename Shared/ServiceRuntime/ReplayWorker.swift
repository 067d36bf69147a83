import Foundation
import Messages
import SQLite
import ZeroMQ

/// Serves `replay` off the service's reactor (issue 28: fifty operator clients replaying 1,000
/// events at a time pushed `order.place` from 1.2 ms to 317 ms, because each page was read and
/// encoded on the one thread that answers everything).
///
/// The reactor decodes and checks a replay request as before, then hands it here: one thread
/// with its own read-only connection to the outbox (`OutboxReader`) reads and encodes the page
/// and sends the reply, with the request's envelope, through an inproc socket back to the
/// reactor, which passes it on to the caller. The queue is bounded: past `queueLimit` waiting
/// requests of a class the caller is answered `request.busy` with `retryAfterMs`, at once.
/// Services' and the edge's replays (consumers catching up) queue ahead of operators' and have a
/// bound of their own, so a crowd of operators cannot make a consumer wait behind them.
final class ReplayWorker: @unchecked Sendable {
    /// One replay to serve: where its reply goes (the request's routing envelope) and what it asks.
    struct Job {
        var envelope: [Data]
        var stream: String
        var fromSeq: UInt64
        var limit: Int
        /// A consumer catching up (a service, the edge, the plain-mode developer): served first.
        var priority: Bool
    }


    /// The rest after a page read for anyone but a consumer, as a multiple of the time the page
    /// took: 9 keeps people's replays to about a tenth of a core (3, a quarter, still moved
    /// region events on two cores past 50 ms while 50 clients replayed).
    static let restFactor = 9.0
    static let maxRestSeconds = 0.25

    /// The reactor's end: the worker's replies arrive here, each `envelope + [reply]`.
    let replies: Socket
    let queueLimit: Int
    /// Replays served by the worker, and refused busy, since start (reactor thread only).
    private(set) var served = 0
    private(set) var refusedBusy = 0

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [Job] = []
    private var priorityQueued = 0
    private var stopping = false
    private var averageSeconds = 0.005
    /// Tests only: called on the worker's thread before each page, to hold the worker while a
    /// backlog is queued.
    var pageGate: (@Sendable () -> Void)? {
        get { condition.withLock { gate } }
        set { condition.withLock { gate = newValue } }
    }
    private var gate: (@Sendable () -> Void)?
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    /// Starts the worker thread reading through `reader` (which it then owns).
    init(context: Context, reader: OutboxReader, queueLimit: Int = RequestServer.replayQueueLimit, logger: Logger) throws {
        self.queueLimit = queueLimit
        let endpoint = "inproc://replay-worker-\(UInt64.random(in: 0...UInt64.max))"
        replies = try Socket(context, .pull)
        try replies.setLinger(milliseconds: 0)
        try replies.bind(endpoint)
        // The reader is handed to the worker's thread here and used by it alone from now on; the
        // thread makes its own socket (a socket is closed on the thread that made it).
        let owned = Handover(reader)
        let thread = Thread { [self] in
            let reader = owned.value
            do {
                let push = try Socket(context, .push)
                try push.setLinger(milliseconds: 0)
                // Never drop a reply: a full pipe makes the worker wait for the reactor to read.
                try push.setSendHighWaterMark(0)
                try push.connect(endpoint)
                work(push: push, reader: reader, logger: logger)
                push.close()
            } catch {
                logger.error("replay worker could not start", ["error": "\(error)"])
            }
            reader.close()
            done.signal()
        }
        thread.name = "replay"
        self.thread = thread
        thread.start()
    }

    /// Queues `job`; nil when queued, else the milliseconds the caller should wait (its class is full).
    func submit(_ job: Job) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        let queued = job.priority ? priorityQueued : jobs.count - priorityQueued
        guard queued < queueLimit, !stopping else {
            refusedBusy += 1
            return max(10, Int((Double(jobs.count) * averageSeconds * 1_000).rounded(.up)))
        }
        if job.priority {
            jobs.insert(job, at: priorityQueued)
            priorityQueued += 1
        } else {
            jobs.append(job)
        }
        condition.signal()
        return nil
    }

    /// Requests waiting now (health).
    var queued: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count
    }

    /// Passes the worker's finished replies on to their callers through `socket` (the request
    /// socket, a ROUTER: it never blocks), at most `limit` in one turn, without copying them. A
    /// caller that went away loses its reply, as with any request.
    func forward(to socket: Socket, limit: Int = 64) throws {
        for _ in 0..<limit {
            guard try replies.forwardOne(to: socket) else { return }
            served += 1
        }
    }

    /// Stops the thread after the page it is reading and waits for it (bounded: one page).
    func stop() {
        condition.lock()
        stopping = true
        jobs.removeAll()
        priorityQueued = 0
        condition.broadcast()
        condition.unlock()
        if thread != nil { done.wait() }
        thread = nil
        replies.close()
    }

    private func work(push: Socket, reader: OutboxReader, logger: Logger) {
        var cached = false
        while true {
            condition.lock()
            if jobs.isEmpty && cached {
                // Idle again after a burst: what the reader cached goes back.
                condition.unlock()
                reader.releaseMemory()
                cached = false
                condition.lock()
            }
            while jobs.isEmpty && !stopping { condition.wait() }
            if stopping {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            if job.priority { priorityQueued -= 1 }
            let gate = gate
            condition.unlock()
            gate?()

            let started = Reactor.monotonic()
            cached = true
            let reply: Data
            do {
                let page = try reader.page(stream: job.stream, fromSeq: job.fromSeq, limit: job.limit)
                reply = Self.encodeReply(stream: job.stream, lastSeq: page.lastSeq, events: page.events)
            } catch let refusal as ServiceError {
                // `replay.pruned`: the caller asked for events older than the replay window.
                reply = RequestRouter.errorReply(refusal)
            } catch {
                logger.error("replay failed", ["stream": job.stream, "error": "\(error)"])
                reply = RequestRouter.errorReply(ServiceError(.internalError, "the service could not read its outbox for replay; try again"))
            }
            let elapsed = Reactor.monotonic() - started
            do {
                try push.send(multipart: job.envelope + [reply])
            } catch {
                if error.isTerminated { return }
                logger.error("replay reply not handed back", ["error": "\(error)"])
            }
            condition.lock()
            averageSeconds = averageSeconds * 0.9 + elapsed * (job.priority ? 1 : 1 + Self.restFactor) * 0.1
            // After a page for someone other than a consumer, the worker rests `restFactor` times
            // as long (a consumer's replay ends the rest): people's replays take a bounded share
            // of a core, however many ask, and the rest is left to the service's own work.
            if !job.priority {
                let end = Date(timeIntervalSinceNow: min(Self.maxRestSeconds, elapsed * Self.restFactor))
                while priorityQueued == 0 && !stopping && condition.wait(until: end) {}
            }
            condition.unlock()
        }
    }

    /// A replay reply: the stored envelopes are spliced in as they were published, not decoded and
    /// encoded again.
    static func encodeReply(stream: String, lastSeq: UInt64, events: [(seq: UInt64, topic: String, envelope: Data)]) -> Data {
        var reply = Data("{\"ok\":true,\"body\":{\"stream\":".utf8)
        reply.reserveCapacity(events.reduce(64) { $0 + $1.envelope.count + $1.topic.count + 24 })
        reply.append(Wire.encode(stream))
        reply.append(Data(",\"lastSeq\":\(lastSeq),\"events\":[".utf8))
        for (index, event) in events.enumerated() {
            if index > 0 { reply.append(UInt8(ascii: ",")) }
            reply.append(Data("{\"topic\":".utf8))
            reply.append(Wire.encode(event.topic))
            reply.append(Data(",\"envelope\":".utf8))
            reply.append(event.envelope)
            reply.append(UInt8(ascii: "}"))
        }
        reply.append(Data("]}}".utf8))
        return reply
    }
}

/// A value handed from one thread to another that uses it alone afterwards.
private final class Handover<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
