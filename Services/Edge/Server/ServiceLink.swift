import EdgeCore
import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// The edge's connection to one service instance's request socket: a DEALER, so any number of
/// requests are in flight at once (the service's REP answers them in turn). Each request goes out
/// as `[correlation id, empty, frame]`; the REP keeps the id frame as part of the envelope and
/// returns it with the reply, so a reply finds its request whatever happened to the others (one
/// that timed out, one lost when the service restarted).
///
/// `ZMQ_IMMEDIATE` keeps a request from queueing for a service that is not connected: the send
/// fails at once and the client gets 503 with the reason, never a hang. A request sent and not
/// answered by its deadline gets 504; its late reply is dropped.
final class ServiceLink {
    let service: String
    let endpoint: String
    let socket: Socket
    /// What to call with the answer, by correlation id, and when the request stops waiting.
    private var pending: [Data: (deadline: Timestamp, done: (EdgeResponse) -> Void)] = [:]
    /// Replies that came after their request's deadline (or for nothing), for health.
    private(set) var late = 0
    private(set) var timedOut = 0
    private(set) var unavailable = 0
    /// Requests refused before sending because this instance had its most waiting (503 at once).
    var shed = 0
    private let logger: Logger
    /// When each kind of failure was last logged (monotonic seconds): at most one line a minute each.
    private var lastLogged: [String: Double] = [:]

    /// A DEALER connected to `peer` (`name@tcp://…` names the server's key in deployed mode; else `service`).
    init(context: Context, service: String, peer: String, security: SocketSecurity, maxMessageBytes: Int, logger: Logger) throws {
        self.service = service
        self.logger = logger
        let (server, endpoint) = PeerEndpoint.split(peer, defaultName: service)
        self.endpoint = endpoint
        socket = try Socket(context, .dealer)
        try socket.setLinger(milliseconds: 0)
        try socket.setImmediate(true)
        try socket.setMaxMessageSize(bytes: Int64(max(maxMessageBytes * 2, RequestServer.transportLimitBytes)))
        // Reconnect quickly after a service restarts: clients are waiting.
        try socket.setReconnectInterval(milliseconds: 100, maxMilliseconds: 1_000)
        try security.secureClient(socket, server: server)
        try socket.connect(endpoint)
    }

    var inFlight: Int { pending.count }

    /// Sends `frame` under `id`; `done` gets the answer, or 503 now when the service is not connected.
    func send(id: String, frame: Data, deadline: Timestamp, done: @escaping (EdgeResponse) -> Void) {
        let key = Data(id.utf8)
        do {
            try socket.send(multipart: [key, Data(), frame], dontWait: true)
        } catch {
            unavailable += 1
            let reason = error.isAgain ? "is not connected" : "cannot be sent to (\(error))"
            note("unavailable", "service unavailable", ["reason": reason, "forward.unavailable": "\(unavailable)"])
            done(Problem(.httpServiceUnavailable, "\(service) at \(endpoint) \(reason); try again shortly",
                         details: ["service": service]).response)
            return
        }
        pending[key] = (deadline, done)
    }

    /// Answers every queued reply (at most `limit` in this turn).
    func drain(limit: Int = 256) throws {
        for _ in 0..<limit {
            guard let frames = try socket.tryReceiveMultipart() else { return }
            guard frames.count == 3, frames[1].isEmpty, let waiting = pending.removeValue(forKey: frames[0]) else {
                late += 1
                continue
            }
            waiting.done(ServiceExchange.response(toReply: frames[2], from: service))
        }
    }

    /// Answers 504 to every request past its deadline at `now`.
    func expire(at now: Timestamp) {
        let expired = pending.filter { $0.value.deadline <= now }
        for (key, waiting) in expired {
            pending[key] = nil
            timedOut += 1
            note("timeout", "service did not answer in time", ["forward.timedOut": "\(timedOut)"])
            waiting.done(Problem(.clientTimeout, "\(service) did not answer in time; the request may or may not have taken effect (an order retried with the same Idempotency-Key is placed once)",
                                 details: ["service": service]).response)
        }
    }

    /// Logs a failure, at most once a minute for each kind, with the running count.
    private func note(_ kind: String, _ message: String, _ fields: [String: String]) {
        let now = Reactor.monotonic()
        if let last = lastLogged[kind], now - last < 60 { return }
        lastLogged[kind] = now
        logger.warning(message, fields.merging(["service": service, "endpoint": endpoint]) { current, _ in current })
    }

    /// Answers 503 to everything still waiting, and closes the socket.
    func close() {
        for (_, waiting) in pending {
            waiting.done(Problem(.httpServiceUnavailable, "the edge is stopping", details: ["service": service]).response)
        }
        pending.removeAll()
        socket.close()
    }
}
