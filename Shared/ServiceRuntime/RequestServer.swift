import Foundation
import Messages
import Policy
import ZeroMQ

/// A service's request side: its request socket, the router that dispatches ops, and the ops every
/// service answers — `health` (with details its parts add) and `replay` (from the outbox).
///
/// The socket is a ROUTER speaking REP's envelope (`[routing id, …, empty, request]`), so REQ and
/// DEALER clients see no difference, but a request need not be answered before the next is read:
/// `replay` is handed to a `ReplayWorker` and answered when its page is read, while the reactor
/// goes on answering everything else (issue 28).
public final class RequestServer {
    public let router: RequestRouter
    /// Where this service answers requests, as other processes should dial it.
    public let advertisedEndpoint: String
    private let socket: Socket
    private let outbox: Outbox
    private let security: SocketSecurity
    private var revokedRefusals = 0
    private let identity: (service: String, instance: String)
    private let maxMessageBytes: Int
    private let started = Reactor.monotonic()
    private var healthDetails: [() -> [String: String]] = []
    private var degradedReasons: [() -> [String]] = []
    /// Reads and encodes replay pages on its own thread; nil when the outbox cannot be opened a
    /// second time (an in-memory database), and replay is then served inline.
    private(set) var replayWorker: ReplayWorker?
    /// The envelope of the request being answered from the socket, while its handler runs: a
    /// replay handed to the worker takes it, and marks the request `deferred` (answered later).
    private var currentEnvelope: [Data]?
    private var deferred = false
    /// Requests without REP's envelope delimiter, dropped unanswered as a REP socket drops them.
    private var malformedEnvelopes = 0

    /// The largest frame a request socket reads at all (libzmq drops a peer that sends more, and
    /// its client would wait out its timeout): far above `--max-message-bytes`, so an oversize
    /// request below it is answered `request.tooLarge`. Clients refuse to send beyond it.
    public static let transportLimitBytes = 16 * 1_048_576

    /// Replays of one class (consumers catching up; everyone else) that may wait for the worker:
    /// a page takes a few milliseconds, so a full queue is answered within about 100 ms and holds
    /// a few MB of replies at most. Past it, `request.busy`.
    public static let replayQueueLimit = 16

    /// Binds a REP socket on `listen`; `advertise` (or the bound address made dialable) is what
    /// heartbeats announce as the replay endpoint.
    public init(context: Context, listen: String, advertise: String, service: String, outbox: Outbox, maxMessageBytes: Int,
                security: SocketSecurity, logger: Logger, replayQueueLimit: Int = RequestServer.replayQueueLimit) throws {
        router = RequestRouter(logger: logger, maxRequestBytes: maxMessageBytes)
        self.outbox = outbox
        self.security = security
        self.identity = (service, outbox.source)
        self.maxMessageBytes = maxMessageBytes
        socket = try Socket(context, .router)
        try socket.setLinger(milliseconds: 200)
        try socket.setMaxMessageSize(bytes: Int64(max(maxMessageBytes * 2, Self.transportLimitBytes)))
        try security.secureServer(socket, endpoint: listen)
        try socket.bind(listen)
        advertisedEndpoint = advertise.isEmpty ? Self.dialable(try socket.lastEndpoint) : advertise
        router.on(Op.health, Empty.self) { [unowned self] _ in try self.health() }
        router.onRaw(Op.replay) { [unowned self] frame, caller in try self.replay(frame, caller: caller) }
        if let reader = try? OutboxReader(path: outbox.databasePath) {
            replayWorker = try ReplayWorker(context: context, reader: reader, queueLimit: replayQueueLimit, logger: logger)
        }
    }

    /// Answers requests whenever the socket is readable.
    public func attach(to reactor: Reactor) {
        reactor.onReadable(socket) { [unowned self] in try self.serve() }
        if let replayWorker { reactor.onReadable(replayWorker.replies) { [unowned self] in try replayWorker.forward(to: self.socket) } }
        reactor.every(1, name: "refused requests' log") { [unowned self] in self.router.flushRefusalLog() }
    }

    /// Adds keys to the health reply.
    public func addHealthDetails(_ provider: @escaping () -> [String: String]) {
        healthDetails.append(provider)
    }

    /// Adds reasons health reports `degraded` for (`storage.full`, `bus.unreachable`, …); none: `ok`.
    public func addDegradedReasons(_ provider: @escaping () -> [String]) {
        degradedReasons.append(provider)
    }

    /// "tcp://0.0.0.0:7430" → "tcp://127.0.0.1:7430": a bind address others can dial.
    static func dialable(_ endpoint: String) -> String {
        endpoint.replacingOccurrences(of: "://0.0.0.0:", with: "://127.0.0.1:").replacingOccurrences(of: "://*:", with: "://127.0.0.1:")
    }

    /// Answers queued requests for one time slice (at least one request), then yields to the loop.
    private func serve() throws {
        let start = Reactor.monotonic()
        for _ in 0..<256 {
            guard var message = try socket.tryReceivePeerMessage() else { return }
            // REP's envelope: the routing frames up to the first empty one (a handful at most).
            guard let delimiter = message.frames.prefix(Self.maxEnvelopeFrames).firstIndex(where: \.isEmpty) else {
                malformedEnvelopes += 1
                continue
            }
            // A caller told to wait that asks again early is dropped before anything is decoded.
            if router.hold.drops(message.userId, now: router.clock()) { continue }
            let envelope = Array(message.frames[...delimiter])
            message.frames.removeFirst(delimiter + 1)
            currentEnvelope = envelope
            deferred = false
            let reply = router.reply(to: message, security: security) { revokedRefusals += 1 }
            currentEnvelope = nil
            // A caller over its high-water mark loses its reply rather than stall the reactor.
            if !deferred { try socket.send(multipart: envelope + [reply], dontWait: true) }
            if Reactor.monotonic() - start >= Reactor.timeSlice { return }
        }
    }

    /// The most frames a request's envelope may have before its delimiter (REQ sends one routing
    /// frame, the edge's DEALER a correlation id more).
    static let maxEnvelopeFrames = 8

    private func health() throws -> HealthStatus {
        var details: [String: String] = ["endpoint": advertisedEndpoint, "auth.refused": "\(router.refusals + revokedRefusals)",
                                         "auth.refused.onBehalfOf": "\(router.onBehalfOfRefusals)", "requests.rateLimited": "\(router.rateLimited)",
                                         "requests.droppedEarly": "\(router.hold.dropped)",
                                         "replay.queued": "\(replayWorker?.queued ?? 0)", "replay.served": "\(replayWorker?.served ?? 0)",
                                         "replay.busy": "\(replayWorker?.refusedBusy ?? 0)", "requests.malformedEnvelope": "\(malformedEnvelopes)"]
        details.merge(security.healthDetails) { _, new in new }
        details.merge(router.metrics.healthDetails) { _, new in new }
        for provider in healthDetails { details.merge(provider()) { _, new in new } }
        let reasons = degradedReasons.flatMap { $0() }
        if !reasons.isEmpty { details["reasons"] = reasons.joined(separator: ",") }
        return HealthStatus(service: identity.service, instance: identity.instance, status: reasons.isEmpty ? "ok" : "degraded",
                            uptimeSeconds: Reactor.monotonic() - started,
                            streams: try outbox.lastSeqs(), outboxPending: try outbox.pendingCount(), details: details)
    }

    private func replay(_ frame: Data, caller: Caller) throws -> Data {
        let request = try Wire.decodeRequest(frame, body: ReplayRequest.self, maxBytes: maxMessageBytes)
        if let refusal = ReplayAccess.refusal(stream: request.body.stream, caller: caller) { throw refusal }
        let limit = min(max(request.body.limit ?? 500, 1), 1_000)
        outbox.noteReplay(stream: request.body.stream, fromSeq: request.body.fromSeq, consumer: caller.principal?.name ?? "plain")
        guard let replayWorker, let envelope = currentEnvelope else {
            // Not from the socket (a terminal's transport calls the router itself), or no worker.
            return ReplayWorker.encodeReply(stream: request.body.stream, lastSeq: try outbox.lastSeq(request.body.stream),
                                            events: try outbox.replay(stream: request.body.stream, fromSeq: request.body.fromSeq, limit: limit))
        }
        let priority = caller.role == nil || caller.role == .service || caller.role == .edge
        let job = ReplayWorker.Job(envelope: envelope, stream: request.body.stream, fromSeq: request.body.fromSeq, limit: limit, priority: priority)
        if let wait = replayWorker.submit(job) {
            throw ServiceError(.busy, "\(identity.service) has \(replayWorker.queueLimit) replays waiting already; try again in \(wait) ms",
                               details: ["retryAfterMs": "\(wait)"])
        }
        deferred = true
        return Data()
    }

    /// Closes the socket (bounded linger).
    public func close() {
        replayWorker?.stop()
        replayWorker = nil
        socket.close()
    }
}
