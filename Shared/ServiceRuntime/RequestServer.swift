import Foundation
import Messages
import Policy
import ZeroMQ

/// A service's request side: its REP socket, the router that dispatches ops, and the ops every
/// service answers — `health` (with details its parts add) and `replay` (from the outbox).
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

    /// The largest frame a request socket reads at all (libzmq drops a peer that sends more, and
    /// its client would wait out its timeout): far above `--max-message-bytes`, so an oversize
    /// request below it is answered `request.tooLarge`. Clients refuse to send beyond it.
    public static let transportLimitBytes = 16 * 1_048_576

    /// Binds a REP socket on `listen`; `advertise` (or the bound address made dialable) is what
    /// heartbeats announce as the replay endpoint.
    public init(context: Context, listen: String, advertise: String, service: String, outbox: Outbox, maxMessageBytes: Int,
                security: SocketSecurity, logger: Logger) throws {
        router = RequestRouter(logger: logger, maxRequestBytes: maxMessageBytes)
        self.outbox = outbox
        self.security = security
        self.identity = (service, outbox.source)
        self.maxMessageBytes = maxMessageBytes
        socket = try Socket(context, .rep)
        try socket.setLinger(milliseconds: 200)
        try socket.setMaxMessageSize(bytes: Int64(max(maxMessageBytes * 2, Self.transportLimitBytes)))
        try security.secureServer(socket, endpoint: listen)
        try socket.bind(listen)
        advertisedEndpoint = advertise.isEmpty ? Self.dialable(try socket.lastEndpoint) : advertise
        router.on(Op.health, Empty.self) { [unowned self] _ in try self.health() }
        router.onRaw(Op.replay) { [unowned self] frame, caller in try self.replay(frame, caller: caller) }
    }

    /// Answers requests whenever the socket is readable.
    public func attach(to reactor: Reactor) {
        reactor.onReadable(socket) { [unowned self] in try self.serve() }
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
            guard let message = try socket.tryReceivePeerMessage() else { return }
            let reply = router.reply(to: message, security: security) { revokedRefusals += 1 }
            try socket.send(reply)
            if Reactor.monotonic() - start >= Reactor.timeSlice { return }
        }
    }

    private func health() throws -> HealthStatus {
        var details: [String: String] = ["endpoint": advertisedEndpoint, "auth.refused": "\(router.refusals + revokedRefusals)",
                                         "auth.refused.onBehalfOf": "\(router.onBehalfOfRefusals)", "requests.rateLimited": "\(router.rateLimited)"]
        details.merge(security.healthDetails) { _, new in new }
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

    /// Closes the socket (bounded linger).
    public func close() {
        socket.close()
    }
}
