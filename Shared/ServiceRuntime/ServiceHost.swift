import Foundation
import Messages
import SQLite
import ZeroMQ

/// Everything a service process shares: configuration, logger, its SQLite file with the outbox,
/// a PUB socket to the bus, a REP socket for requests (health and replay included), an optional
/// SUB socket feeding a `StreamFollower`, and the reactor that runs them all on one thread.
///
/// A service's `main` builds one, registers its ops and subscriptions, and calls `run()`.
public final class ServiceHost {
    public let service: String
    public let config: Configuration
    public let logger: Logger
    public let clock: any WallClock
    public let context: Context
    public let db: Database
    public let outbox: Outbox
    public let router: RequestRouter
    public let reactor: Reactor
    public let shutdown = ShutdownSignal()
    /// Where this service answers requests, as other processes should dial it.
    public let advertisedEndpoint: String
    public let maxMessageBytes: Int

    private let publisher: Socket
    private let replier: Socket
    private var subscriber: Socket?
    private var follower: StreamFollower?
    private var bestEffortSeq: [String: UInt64] = [:]
    /// Best-effort envelopes are numbered, not given random UUIDs (a random UUID per sighting
    /// costs a getrandom call and formatting): a per-process random prefix and the sequence
    /// number keep ids unique across restarts.
    private let bestEffortIDPrefix = String(UInt64.random(in: 0...UInt64.max), radix: 36) + "-"

    private var healthDetails: [() -> [String: String]] = []
    private let started = Reactor.monotonic()
    private var deadLettered = 0
    private var busObservers: [(Envelope) -> Void] = []

    /// The options every service reads, with this service's request port as the listen default.
    public static func commonSpecs(service: String, listenPort: Int) -> [OptionSpec] {
        [
            OptionSpec("listen", .endpoint, default: "tcp://127.0.0.1:\(listenPort)", help: "where this service answers requests (health, replay and its own ops)"),
            OptionSpec("advertise", .string, default: "", help: "the request endpoint other processes should dial (default: --listen, with * or 0.0.0.0 read as 127.0.0.1)"),
            OptionSpec("bus-pub", .endpoint, default: "tcp://127.0.0.1:7401", help: "the bus endpoint publishers connect to (its XSUB side)"),
            OptionSpec("bus-sub", .endpoint, default: "tcp://127.0.0.1:7402", help: "the bus endpoint subscribers connect to (its XPUB side)"),
            OptionSpec("data-dir", .path, default: "data", help: "folder for this service's SQLite file"),
            OptionSpec("instance", .string, default: service, help: "instance name: the envelope source and the SQLite file name"),
            OptionSpec("log-level", .choice(["debug", "info", "warning", "error"]), default: "info", help: "the least important log level written to stderr"),
            OptionSpec("max-message-bytes", .integer, default: "\(Wire.defaultMaxFrameBytes)", help: "frames larger than this are refused"),
        ]
    }

    /// Builds the host from already-loaded configuration (which must include `commonSpecs`).
    public init(service: String, config: Configuration, clock: any WallClock = SystemClock()) throws {
        self.service = service
        self.config = config
        self.clock = clock
        let instance = config.string("instance")
        logger = Logger(service: service, instance: instance, minimum: Logger.Level(name: config.string("log-level")) ?? .info)
        maxMessageBytes = config.int("max-message-bytes")

        let dataDir = config.string("data-dir")
        try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
        db = try Database(path: (dataDir as NSString).appendingPathComponent("\(instance).sqlite"))
        outbox = try Outbox(db: db, source: instance, clock: clock)
        router = RequestRouter(logger: logger, maxRequestBytes: maxMessageBytes)
        reactor = Reactor(shutdown: shutdown, logger: logger)

        context = try Context()
        publisher = try Socket(context, .pub)
        try publisher.setSendHighWaterMark(100_000)
        try publisher.setLinger(milliseconds: 500)
        try publisher.setReconnectInterval(milliseconds: 100, maxMilliseconds: 2_000)
        try publisher.connect(config.string("bus-pub"))

        replier = try Socket(context, .rep)
        try replier.setLinger(milliseconds: 200)
        try replier.setMaxMessageSize(bytes: Int64(maxMessageBytes) * 2)
        let listen = config.string("listen")
        try replier.bind(listen)
        let advertise = config.string("advertise")
        advertisedEndpoint = advertise.isEmpty ? Self.dialable(try replier.lastEndpoint) : advertise

        router.on(Op.health, Empty.self) { [unowned self] _ in try self.health() }
        router.onRaw(Op.replay) { [unowned self] frame in try self.replay(frame) }
        reactor.onReadable(replier) { [unowned self] in try self.serveRequests() }
        reactor.every(1.0, name: "heartbeat") { [unowned self] in try self.heartbeat() }
        reactor.every(0.25, name: "outbox.flush") { [unowned self] in
            self.flush()
            try self.outbox.persistPublished()
        }
        // After a burst (a lunch rush, a replay) glibc keeps the freed heap; hand it back so a
        // service's resident memory follows what it holds, not what it once buffered.
        reactor.every(10, name: "memory.trim") { Self.trimHeap() }
        reactor.every(3600, name: "outbox.prune") { [unowned self] in
            try self.outbox.prune(before: self.clock.now().adding(seconds: -7 * 24 * 3600))
        }
    }

    /// glibc's `malloc_trim(0)`, looked up at run time (Swift's Glibc module does not export
    /// malloc.h); a no-op on a libc without it.
    static func trimHeap() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }

    /// "tcp://0.0.0.0:7430" → "tcp://127.0.0.1:7430": a bind address others can dial.
    static func dialable(_ endpoint: String) -> String {
        endpoint.replacingOccurrences(of: "://0.0.0.0:", with: "://127.0.0.1:").replacingOccurrences(of: "://*:", with: "://127.0.0.1:")
    }

    // MARK: Writing and publishing

    /// Runs `body` in one SQLite transaction (state change and outbox events together), then
    /// publishes what it wrote. Inside another `write` it is a savepoint, and the events go out
    /// when the outermost transaction has committed.
    @discardableResult
    public func write<T>(_ body: () throws -> T) throws -> T {
        let result = try db.transaction(body)
        flush()
        return result
    }

    /// Adds an event to the outbox of the current `write` transaction.
    @discardableResult
    public func emit(_ type: EventType, topic: String, stream: String, _ body: EventBody) throws -> Envelope {
        try outbox.append(type, topic: topic, stream: stream, body: body)
    }

    /// Sends what the outbox holds. A failure is logged; the flush timer retries.
    public func flush() {
        do {
            try outbox.flush { topic, envelope in
                try publisher.send(Array(topic.utf8), more: true, dontWait: true)
                try publisher.send(envelope, dontWait: true)
            }
        } catch {
            logger.warning("outbox flush stopped", ["error": "\(error)"])
        }
    }

    /// Publishes a best-effort event (sightings, fixes) straight to the bus: counted per stream,
    /// not stored, not replayable.
    public func publishBestEffort(_ type: EventType, topic: String, stream: String, _ body: EventBody) throws {
        let seq = (bestEffortSeq[stream] ?? 0) + 1
        bestEffortSeq[stream] = seq
        let envelope = Envelope(type: type, id: bestEffortIDPrefix + stream + "-" + String(seq), source: outbox.source, stream: stream,
                                seq: seq, time: clock.now(), body: body)
        try publisher.send(Array(topic.utf8), more: true, dontWait: true)
        try publisher.send(Wire.encode(envelope), dontWait: true)
    }

    /// Sends a best-effort event on a socket of the caller's (a direct channel, not the bus), with
    /// the same envelope and per-stream sequence `publishBestEffort` gives. Returns false, sending
    /// nothing, when the socket would block (its peer is gone or too slow): the caller counts it.
    public func sendBestEffort(on socket: Socket, _ type: EventType, topic: String, stream: String, _ body: EventBody) throws -> Bool {
        let seq = (bestEffortSeq[stream] ?? 0) + 1
        let envelope = Envelope(type: type, id: bestEffortIDPrefix + stream + "-" + String(seq), source: outbox.source, stream: stream,
                                seq: seq, time: clock.now(), body: body)
        do {
            try socket.send(multipart: [Data(topic.utf8), Wire.encode(envelope)], dontWait: true)
        } catch {
            let failure: ZeroMQError = error
            if failure.isAgain { return false }
            throw failure
        }
        bestEffortSeq[stream] = seq
        return true
    }

    // MARK: Subscribing

    /// Subscribes to topic prefixes on the bus. Events of `durableStreams` are applied exactly
    /// once, in order, inside a transaction with the consumer's cursor; `handler` may `emit`.
    public func subscribe(_ prefixes: [String], durableStreams: Set<String>, handler: @escaping (String, Envelope) throws -> Void) throws {
        precondition(subscriber == nil, "subscribe once with every prefix")
        let socket = try Socket(context, .sub)
        try socket.setReceiveHighWaterMark(200_000)
        try socket.setLinger(milliseconds: 0)
        try socket.setMaxMessageSize(bytes: Int64(maxMessageBytes) * 2)
        try socket.setReconnectInterval(milliseconds: 100, maxMilliseconds: 2_000)
        for prefix in prefixes { try socket.subscribe(prefix) }
        try socket.subscribe("heartbeat.")
        try socket.connect(config.string("bus-sub"))
        subscriber = socket
        follower = try StreamFollower(
            db: db, logger: logger, context: context, durableStreams: durableStreams, prefixes: prefixes,
            apply: handler,
            deadLetter: { [unowned self] topic, envelope, raw, error in
                self.deadLetter(topic: topic, raw: raw, error: error)
            })
        reactor.onReadable(socket) { [unowned self] in try self.drainSubscriber() }
    }

    /// Calls `observer` with every message the subscription receives (heartbeats included, this
    /// service's own among them: it comes back through the bus), after the stream follower has
    /// seen it. For a service that shows its links; it needs no socket of its own.
    public func onBusMessage(_ observer: @escaping (Envelope) -> Void) {
        busObservers.append(observer)
    }

    /// The last seq of `stream` from `source` this service has applied (0 before any).
    public func consumerCursor(source: String, stream: String) -> UInt64 {
        follower?.cursor(source: source, stream: stream) ?? 0
    }

    private func drainSubscriber() throws {
        guard let subscriber else { return }
        // What arrives together is applied in one transaction (group commit): a burst costs one
        // commit, not one per event. Each event still gets its own savepoint, so one that fails
        // is rolled back and dead-lettered alone. A batch ends after 2 ms, so no event waits
        // longer than that for the commit that announces it.
        var more = true
        for _ in 0..<64 where more {
            more = try db.transaction { try drainBatch(subscriber, until: Reactor.monotonic() + 0.002) }
            flush()
        }
    }

    /// Applies queued messages until the queue is empty (false) or the deadline passes (true).
    private func drainBatch(_ subscriber: Socket, until deadline: Double) throws -> Bool {
        guard let follower else { return false }
        var count = 0
        while true {
            count += 1
            if count % 16 == 0, Reactor.monotonic() > deadline { return true }
            guard let frames = try subscriber.tryReceiveMultipart() else { return false }
            guard frames.count == 2 else {
                deadLetter(topic: frames.first.map { String(decoding: $0, as: UTF8.self) } ?? "", raw: frames.last ?? Data(),
                           error: WireError(.messageMalformed, "expected 2 frames [topic][envelope], got \(frames.count)"))
                continue
            }
            let topic = String(decoding: frames[0], as: UTF8.self)
            do {
                let envelope = try Wire.decodeEnvelope(frames[1], maxBytes: maxMessageBytes)
                follower.receive(topic: topic, envelope: envelope, raw: frames[1])
                for observer in busObservers { observer(envelope) }
            } catch {
                deadLetter(topic: topic, raw: frames[1], error: error)
            }
        }
    }

    /// Publishes a message this service could not use on `deadletter.<service>.`, with the reason.
    public func deadLetter(topic: String, raw: Data, error: Error) {
        deadLettered += 1
        let (code, message): (String, String) = switch error {
        case let e as WireError: (e.code.rawValue, e.message)
        case let e as ServiceError: (e.code, e.message)
        default: (ErrorCode.internalError.rawValue, "\(error)")
        }
        logger.warning("dead letter", ["topic": topic, "error.code": code, "error.message": message])
        let excerpt = String(decoding: raw.prefix(512), as: UTF8.self)
        try? publishBestEffort(.deadLetter, topic: Topic.deadLetter(service: service), stream: "deadletter",
                               .deadLetter(DeadLetter(service: service, code: code, message: message, topic: topic, excerpt: excerpt)))
    }

    // MARK: Requests

    private func serveRequests() throws {
        for _ in 0..<256 {
            guard let frames = try replier.tryReceiveMultipart() else { return }
            let reply: Data
            if frames.count != 1 {
                reply = RequestRouter.errorReply(ServiceError(.malformed, "a request is one JSON frame, got \(frames.count) frames"))
            } else {
                reply = router.handle(frames[0])
            }
            try replier.send(reply)
        }
    }

    /// Adds keys to this service's health reply.
    public func addHealthDetails(_ provider: @escaping () -> [String: String]) {
        healthDetails.append(provider)
    }

    private func health() throws -> HealthStatus {
        var details: [String: String] = [
            "bus.pub": config.string("bus-pub"),
            "bus.sub": config.string("bus-sub"),
            "endpoint": advertisedEndpoint,
            "deadLettered": "\(deadLettered)",
        ]
        if let follower {
            for (key, seq) in follower.cursorSummary { details["cursor.\(key)"] = "\(seq)" }
            details["replayed"] = "\(follower.replayedCount)"
            details["duplicates"] = "\(follower.duplicateCount)"
        }
        for provider in healthDetails { details.merge(provider()) { _, new in new } }
        return HealthStatus(service: service, instance: outbox.source, status: "ok", uptimeSeconds: Reactor.monotonic() - started,
                            streams: try outbox.lastSeqs(), outboxPending: try outbox.pendingCount(), details: details)
    }

    private func replay(_ frame: Data) throws -> Data {
        let request = try Wire.decodeRequest(frame, body: ReplayRequest.self, maxBytes: maxMessageBytes)
        let limit = min(max(request.body.limit ?? 500, 1), 1_000)
        let events = try outbox.replay(stream: request.body.stream, fromSeq: request.body.fromSeq, limit: limit)
        let last = try outbox.lastSeq(request.body.stream)
        // The stored envelopes are spliced in as they were published, not decoded and re-encoded.
        var reply = Data("{\"ok\":true,\"body\":{\"stream\":".utf8)
        reply.append(Wire.encode(request.body.stream))
        reply.append(Data(",\"lastSeq\":\(last),\"events\":[".utf8))
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

    private func heartbeat() throws {
        let heartbeat = Heartbeat(service: service, streams: try outbox.lastSeqs(), replayEndpoint: advertisedEndpoint, epoch: outbox.epoch)
        try publishBestEffort(.heartbeat, topic: Topic.heartbeat(source: outbox.source), stream: "heartbeat", .heartbeat(heartbeat))
    }

    // MARK: Running

    /// Runs until SIGTERM or SIGINT, then stops within the linger bounds: last flush, sockets
    /// closed with bounded linger, database closed.
    public func run() {
        shutdown.installHandlers(logger: logger)
        var started = ["endpoint": advertisedEndpoint, "bus.pub": config.string("bus-pub"), "bus.sub": config.string("bus-sub"), "db.path": db.path]
        // Every value that did not come from its default, and where it came from.
        for (name, source) in config.sources where source != "default" {
            started["config.\(name)"] = "\(config.string(name)) (\(source))"
        }
        logger.info("started", started)
        flush()
        // Announce the epoch and stream positions at once, not a second later: a consumer learns
        // early that this publisher started over.
        try? heartbeat()
        reactor.run()
        flush()
        try? outbox.persistPublished()
        follower?.close()
        subscriber?.close()
        replier.close()
        publisher.close()
        db.close()
        logger.info("stopped")
    }
}
