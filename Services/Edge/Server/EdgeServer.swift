import EdgeCore
import Foundation
import Identity
import Messages
import Policy
import ServiceRuntime
import ZeroMQ

/// The HTTP edge: a ROUTER connected to Pushpin's `zhttpreq` endpoint takes each HTTP request as a
/// zmq-http packet; the edge checks the client's address and bearer session against their rate
/// limits, finds the route (`EdgeRouter`), and answers a session route or the OpenAPI document
/// itself, or forwards the op to its service (`ServiceLink`, a DEALER per instance) on behalf of the
/// session's principal over its own CURVE key. Answers go back in any order, each with its request's id.
///
/// Everything runs on the host's reactor thread: sockets, the session store, the limits, and every
/// `done` callback. That is why the class may be captured by the `@Sendable` `ask`.
public final class EdgeServer: @unchecked Sendable {
    let clock: any WallClock
    let logger: Logger
    let reactor: Reactor
    let requests: RequestServer
    let settings: EdgeSettings
    let sessions: SessionEndpoints
    let store: SessionStore
    let usedTokens: UsedIDTokens
    let router = EdgeRouter()
    let tokenLimiter: RateLimiter
    let addressLimiter: RateLimiter
    /// The ROUTER Pushpin's DEALER sends requests to.
    let zhttp: Socket
    /// Each service's instances, in shard order.
    let links: [String: [ServiceLink]]
    /// Pushpin's signature check, when its key was given.
    let grip: GripSignatureCache?
    /// The edge's instance name, the `from` of its answers.
    let instance: [UInt8]
    private let openAPI: [UInt8] = OpenAPIDocument.encoded()
    private var nextId: UInt64 = 0
    /// Counts for health.
    var answered: [Int: Int] = [:]
    var dropped = 0
    /// SIGHUP reloads of the issuers file that were taken, and refused.
    var issuerReloads = 0, issuerReloadFailures = 0

    /// Answers the two SSE routes (set by `main` once the streams part is wired); nil: 404.
    public var openStream: ((_ call: EdgeCall, _ headers: HTTPHeaders, _ principal: OnBehalfOf,
                             _ done: @escaping @Sendable (EdgeResponse) -> Void) -> Void)?

    /// The edge on `host` (its reactor, request socket, security and SQLite file for sessions).
    public init(host: ServiceHost, settings: EdgeSettings, issuers: IssuerConfiguration) throws {
        clock = host.clock
        logger = host.logger
        reactor = host.reactor
        requests = host.requests
        self.settings = settings
        store = try SessionStore(database: host.db, clock: host.clock)
        usedTokens = try UsedIDTokens(database: host.db)
        sessions = try SessionEndpoints(store: store, configuration: issuers, clock: host.clock, usedTokens: usedTokens,
                                        devices: try DeviceBindings(database: host.db))
        tokenLimiter = RateLimiter(limit: settings.tokenLimit, clock: host.clock)
        addressLimiter = RateLimiter(limit: settings.addressLimit, clock: host.clock)
        instance = Array(host.logger.instance.utf8)
        if settings.gripKeyFile.isEmpty {
            grip = nil
        } else {
            guard let key = FileManager.default.contents(atPath: settings.gripKeyFile), !key.isEmpty, key.count <= 1_024 else {
                throw IdentityError(.configuration, "cannot read Pushpin's sig_key from \(settings.gripKeyFile)")
            }
            grip = GripSignatureCache(GripSignature(key: Array(String(decoding: key, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).utf8)))
        }
        zhttp = try Socket(host.context, .router)
        try zhttp.setLinger(milliseconds: 0)
        // Pushpin's req-mode packets are at most about 1 MB; the decoder holds them to its own limits.
        try zhttp.setMaxMessageSize(bytes: Int64(ZhttpLimits.standard.tnetstring.maxBytes + 1_024))
        var links: [String: [ServiceLink]] = [:]
        for (service, peers) in settings.serviceEndpoints {
            links[service] = try peers.map { try ServiceLink(context: host.context, service: service, peer: $0, security: host.security,
                                                              maxMessageBytes: host.maxMessageBytes, logger: host.logger) }
        }
        self.links = links
        try zhttp.connect(settings.zhttpEndpoint)
    }

    /// Registers the sockets, the deadline sweep, the token ops and health.
    public func start() {
        reactor.onReadable(zhttp) { [unowned self] in try self.serveHTTP() }
        for link in links.values.flatMap({ $0 }) {
            reactor.onReadable(link.socket) { [unowned link] in try link.drain() }
        }
        // Deadlines are checked every 20 ms: a 504 comes at most that late.
        reactor.every(0.02, name: "edge.deadlines") { [unowned self] in
            let now = clock.now()
            for link in links.values.flatMap({ $0 }) { link.expire(at: now) }
        }
        reactor.every(60, name: "edge.limits.prune") { [unowned self] in
            tokenLimiter.prune()
            addressLimiter.prune()
        }
        // Ended sessions are kept a month for the operator's lists; used ID tokens until they expire.
        reactor.every(3_600, name: "edge.sessions.purge") { [unowned self] in
            try usedTokens.purge(before: clock.now())
            _ = try store.purge(endedBefore: clock.now().adding(seconds: -30 * 86_400))
        }
        routeTokenOps()
        requests.addHealthDetails { [unowned self] in healthDetails }
        reloadIssuersOnHangup()
    }

    /// SIGHUP re-reads the issuers file and its JWKS files (checked every half second on the
    /// reactor), so an issuer's rotated signing key is trusted without a restart; a file that
    /// cannot be read or used keeps the issuers in use, and says why.
    private func reloadIssuersOnHangup() {
        guard !settings.issuers.isEmpty else { return }
        HangupSignal.shared.start()
        var seen = HangupSignal.shared.count
        reactor.every(0.5, name: "edge.issuers.reload") { [unowned self] in
            let count = HangupSignal.shared.count
            guard count != seen else { return }
            seen = count
            do {
                try sessions.use(try IssuerConfiguration(file: settings.issuers))
                issuerReloads += 1
                logger.info("issuers reloaded", ["issuers.path": settings.issuers, "issuers": "\(sessions.configuration.issuers.count)"])
            } catch {
                issuerReloadFailures += 1
                logger.error("issuers not reloaded; those in use are kept", ["issuers.path": settings.issuers, "error": "\(error)"])
            }
        }
    }

    /// The `EdgeAsk` the streams part uses: an op forwarded on behalf of `principal`, exactly as a route's.
    public var ask: EdgeAsk {
        { [unowned self] op, body, principal, done in
            forward(op: op, body: body, principal: principal, deviceId: principal.deviceId, done: done)
        }
    }

    // MARK: Requests from Pushpin

    /// Answers every queued request (for one time slice), then yields to the loop.
    func serveHTTP() throws {
        let start = Reactor.monotonic()
        for _ in 0..<256 {
            guard let frames = try zhttp.tryReceiveMultipart() else { return }
            guard let envelope = ZhttpEnvelope(frames: frames) else {
                dropped += 1
                continue
            }
            handle(envelope)
            if Reactor.monotonic() - start >= Reactor.timeSlice { return }
        }
    }

    func handle(_ envelope: ZhttpEnvelope) {
        let request: ZhttpRequest
        do {
            request = try ZhttpRequest.decode(envelope.frame)
        } catch {
            switch error {
            case .unanswerable(let code, let message):
                dropped += 1
                logger.debug("zmq-http packet dropped", ["code": code, "reason": message])
            case .answered(let id, _, let problem):
                reply(envelope, id: id, problem.response)
            }
            return
        }
        let id = request.id
        respond(to: request) { [unowned self] response in self.reply(envelope, id: id, response) }
    }

    /// The answer to one request, through `done` (at once, or when its service answers).
    func respond(to request: ZhttpRequest, done: @escaping @Sendable (EdgeResponse) -> Void) {
        if let grip, !(request.headers.values("Grip-Sig").count == 1 && grip.verifies(request.headers["Grip-Sig"] ?? "", now: clock.now())) {
            return done(Problem(.forbidden, "the request did not come through this platform's Pushpin (no valid Grip-Sig)").response)
        }
        if let wait = addressLimiter.take("a:" + Self.clientAddress(of: request)) {
            return done(Self.rateLimited(wait, "this address"))
        }
        // The screens' pages need no session: a page signs in with the token its user gives it.
        if let page = WebPages.answer(method: request.method, uri: request.uri) { return done(page) }
        let session: Session?
        let call: EdgeCall
        do {
            session = try sessions.authenticate(request.headers)
            if let session, let wait = tokenLimiter.take("t:" + session.id) {
                return done(Self.rateLimited(wait, "this session"))
            }
            call = try router.resolve(request, role: session.map(SessionEndpoints.role))
        } catch {
            return done(error.response)
        }
        // Not a switch: the streams part adds actions, and they fall to the last branch.
        if case .openAPI = call.action {
            done(.json(openAPI))
        } else if case .session(let action) = call.action {
            done(sessions.answer(action, body: call.body, session: session))
        } else if case .op(let op) = call.action {
            guard let session else { return done(Problem(.httpUnauthenticated, "a session is needed").response) }
            forward(op: op, body: call.body, principal: SessionEndpoints.principal(of: session),
                    deviceId: call.pathParameters["deviceId"] ?? session.deviceId, done: done)
        } else {
            guard let openStream, let session else {
                return done(Problem(.httpNotFound, "\(call.route.name) is not served by this edge yet").response)
            }
            openStream(call, request.headers, SessionEndpoints.principal(of: session), done)
        }
    }

    /// Sends `op` to its service (the device's shard where the op is sharded) with a deadline.
    func forward(op: String, body: [UInt8], principal: OnBehalfOf, deviceId: String?, done: @escaping @Sendable (EdgeResponse) -> Void) {
        guard let target = OpServices.target(of: op), let instances = links[target.service], !instances.isEmpty else {
            return done(Problem(.httpNotFound, "no service answers \(Quoting.quoted(op)) at this edge").response)
        }
        guard links.values.reduce(0, { $0 + $1.reduce(0) { $0 + $1.inFlight } }) < settings.maxInFlight else {
            return done(Problem(.httpServiceUnavailable, "the edge has \(settings.maxInFlight) requests waiting for services; try again shortly").response)
        }
        let shard = target.sharded ? Topic.shard(of: deviceId ?? "", count: instances.count) : 0
        guard instances[shard].inFlight < settings.maxInFlightPerInstance else {
            instances[shard].shed += 1
            return done(Problem(.httpServiceUnavailable, "\(target.service) has \(settings.maxInFlightPerInstance) requests waiting; try again shortly",
                                details: ["service": target.service], headers: [("Retry-After", "1")]).response)
        }
        nextId &+= 1
        let id = "edge-\(nextId)"
        let frame = ServiceExchange.requestFrame(op: op, id: id, onBehalfOf: principal, body: body)
        instances[shard].send(id: id, frame: frame, deadline: clock.now().adding(seconds: Double(settings.deadlineMilliseconds) / 1_000), done: done)
    }

    func reply(_ envelope: ZhttpEnvelope, id: [UInt8], _ response: EdgeResponse) {
        answered[response.status, default: 0] += 1
        do {
            try zhttp.send(multipart: envelope.reply(response.zhttp(answering: id, from: String(decoding: instance, as: UTF8.self))), dontWait: true)
        } catch {
            // Pushpin went away or its queue is full: the client's request times out at Pushpin.
            dropped += 1
        }
    }

    /// The client's address: the zhttp `peer-address` when sent, else the last `X-Forwarded-For`
    /// entry, which Pushpin appends (its configuration truncates what the client sent first). An
    /// address is 1–64 of hex digits, `.` and `:` (IPv4 or IPv6); anything else is "unknown".
    public static func clientAddress(of request: ZhttpRequest) -> String {
        let forwarded = request.headers.values("X-Forwarded-For").joined(separator: ",")
        let candidate = request.peerAddress ?? forwarded.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let valid = !candidate.isEmpty && candidate.utf8.count <= 64
            && candidate.utf8.allSatisfy { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ":") || ($0 < 0x80 && Character(Unicode.Scalar($0)).isHexDigit) }
        return valid ? candidate : "unknown"
    }

    static func rateLimited(_ seconds: Int, _ who: String) -> EdgeResponse {
        Problem(.httpRateLimited, "too many requests from \(who); retry after \(seconds) s", headers: [("Retry-After", "\(seconds)")]).response
    }

    var healthDetails: [String: String] {
        var details = ["zhttp.endpoint": settings.zhttpEndpoint, "zhttp.dropped": "\(dropped)",
                       "issuers.reloaded": "\(issuerReloads)", "issuers.reloadFailed": "\(issuerReloadFailures)",
                       "limits.refused.token": "\(tokenLimiter.refused)", "limits.refused.address": "\(addressLimiter.refused)"]
        for (status, count) in answered { details["http.\(status)"] = "\(count)" }
        for (service, instances) in links {
            details["forward.\(service).inFlight"] = "\(instances.reduce(0) { $0 + $1.inFlight })"
            details["forward.\(service).timedOut"] = "\(instances.reduce(0) { $0 + $1.timedOut })"
            details["forward.\(service).unavailable"] = "\(instances.reduce(0) { $0 + $1.unavailable })"
            details["forward.\(service).shed"] = "\(instances.reduce(0) { $0 + $1.shed })"
        }
        return details
    }

    /// Closes the sockets (answering what still waits); `main`'s host closes the rest.
    public func close() {
        for link in links.values.flatMap({ $0 }) { link.close() }
        zhttp.close()
    }
}
