import Foundation
import Messages
import Metrics
import Policy
import ZeroMQ

/// Dispatches requests by `op` to typed handlers and turns every failure into a typed error reply.
///
/// Decoding is strict (unknown op, malformed JSON, a missing or mistyped field → an error code
/// naming the field); a handler that throws `ServiceError` answers with it; anything else is
/// logged and answered with `internal.error`. Handlers write through `ServiceHost.write`, whose
/// transaction rolls back when they throw, so a refused request leaves no half-written state.
///
/// Before a handler runs, the caller's role must be one `OpAccess` opens the op to (deployed
/// mode; the plain-mode developer passes). An op open to a scoped role (phone, kiosk, kitchen)
/// must be registered with a handler that takes the `Caller`, which checks the scope. A request
/// naming an `onBehalfOf` principal runs as that principal when its connection is the HTTP edge's
/// key (`Caller.acting(onBehalfOf:)`), and is refused from any other key before anything else.
public final class RequestRouter {
    private var routes: [String: (Data, Caller) throws -> Data] = [:]
    /// For ops whose body has a hand-written reader: the whole request read in one pass, its head
    /// and the handler's run on its body, or nil when the reader gives up (`onePass`).
    private var onePassRoutes: [String: (Data, Int) -> (head: RequestHead, run: (Caller) throws -> Data)?] = [:]
    /// Requests read in one pass, since start.
    public private(set) var onePassReads = 0
    /// Requests refused with `auth.forbidden`, since start.
    public private(set) var refusals = 0
    /// Of those, requests naming an on-behalf-of principal from a key that is not the edge's.
    public private(set) var onBehalfOfRefusals = 0
    private let logger: Logger
    /// Refused requests in the log: the first of each op and role at once, then a summary every 10 s
    /// (a phone calling `replay` in a loop wrote a warning per call).
    private var refusalLog = RefusalLog(first: "request refused", summary: "requests refused")
    /// Each principal's requests per second, by role (`RequestBudget`); `health` is never limited.
    private var budget = RequestBudget()
    /// Requests refused with `request.rateLimited`, since start.
    public private(set) var rateLimited = 0
    /// Principals told to wait, whose early requests the request server drops unanswered.
    public var hold = RefusalHold()
    /// The clock the budget and the refusal log read (seconds, monotonic); a test sets its own.
    public var clock: () -> Double = Reactor.monotonic
    /// Requests larger than this are refused unread.
    public var maxRequestBytes: Int
    /// Requests per op, their errors and how long each took (health's `op:` keys).
    public private(set) var metrics = RequestMetrics()

    public init(logger: Logger, maxRequestBytes: Int = Wire.defaultMaxFrameBytes) {
        self.logger = logger
        self.maxRequestBytes = maxRequestBytes
    }

    /// The ops this router answers.
    public var ops: [String] { routes.keys.sorted() }

    /// Answers `op` with `handler`, its body decoded as `Body`. Only for ops no scoped role may
    /// call (health, monitor administration): the handler does not see who called.
    public func on<Body: Codable & Sendable, Result: Codable & Sendable>(_ op: String, _ body: Body.Type, _ handler: @escaping (Body) throws -> Result) {
        precondition(!OpAccess.isScoped(op), "\(op) is open to a scoped role; register it with a handler that takes the Caller")
        on(op, body) { body, _ in try handler(body) }
    }

    /// Answers `op` with `handler`, its body decoded as `Body`, told who called.
    public func on<Body: Codable & Sendable, Result: Codable & Sendable>(_ op: String, _ body: Body.Type, _ handler: @escaping (Body, Caller) throws -> Result) {
        let limit = { [unowned self] in self.maxRequestBytes }
        routes[op] = { frame, caller in
            let request = try Wire.decodeRequest(frame, body: Body.self, maxBytes: limit())
            return Wire.encode(Reply<Result>.success(try handler(request.body, caller)))
        }
        guard Wire.readsInOnePass(Body.self) else { return }
        onePassRoutes[op] = { frame, maxBytes in
            guard let request = Wire.decodeRequestInOnePass(frame, body: Body.self, maxBytes: maxBytes) else { return nil }
            let head = RequestHead(op: request.op, id: request.id, onBehalfOf: request.onBehalfOf)
            return (head, { caller in Wire.encode(Reply<Result>.success(try handler(request.body, caller))) })
        }
    }

    /// Answers `op` with a handler that builds the reply bytes itself (replay embeds stored JSON).
    public func onRaw(_ op: String, _ handler: @escaping (Data) throws -> Data) {
        precondition(!OpAccess.isScoped(op), "\(op) is open to a scoped role; a raw handler cannot check its scope")
        routes[op] = { frame, _ in try handler(frame) }
    }

    /// Answers `op` with a raw handler that also sees the caller (replay holds the edge to its streams).
    public func onRaw(_ op: String, _ handler: @escaping (Data, Caller) throws -> Data) {
        precondition(!OpAccess.isScoped(op), "\(op) is open to a scoped role; a raw handler cannot check its scope")
        routes[op] = handler
    }

    /// The reply to one request frame from `caller`. Never throws: every failure becomes an error reply.
    public func handle(_ frame: Data, caller connection: Caller = .developer) -> Data {
        let started = clock()
        var answered = RequestMetrics.otherOp
        var errorCode: String?
        let reply = answer(frame, caller: connection, op: &answered, errorCode: &errorCode)
        metrics.record(op: answered, seconds: clock() - started, errorCode: errorCode)
        return reply
    }

    private func answer(_ frame: Data, caller connection: Caller, op metricOp: inout String, errorCode: inout String?) -> Data {
        var op = "?"
        var caller = connection
        do {
            let (head, read) = try self.head(of: frame)
            op = Quoting.cut(head.op)
            if routes[head.op] != nil { metricOp = head.op }
            do {
                caller = try connection.acting(onBehalfOf: head.onBehalfOf)
            } catch {
                if error.code == ErrorCode.forbidden.rawValue { onBehalfOfRefusals += 1 }
                throw error
            }
            guard let route = routes[head.op] else {
                throw ServiceError(.unknownOp, "unknown op \(Quoting.quoted(head.op)); this service answers: \(ops.joined(separator: ", "))")
            }
            if let refusal = OpAccess.refusal(op: head.op, caller: caller) { throw refusal }
            // Deployed mode only: a plain-mode connection is the loopback developer's, whatever
            // principal its request names.
            if head.op != Op.health, connection.role != nil, let wait = budget.spend(caller, now: clock()) {
                rateLimited += 1
                throw ServiceError(.rateLimited, "\(caller.name) (\(caller.role?.rawValue ?? "developer")) is over its request budget; try again in \(wait) ms",
                                   details: ["retryAfterMs": "\(wait)"])
            }
            return try read?(caller) ?? route(frame, caller)
        } catch let error as ServiceError {
            errorCode = error.code
            if [ErrorCode.forbidden.rawValue, ErrorCode.rateLimited.rawValue, ErrorCode.busy.rawValue].contains(error.code) {
                if error.code == ErrorCode.forbidden.rawValue { refusals += 1 }
                var fields = ["op": op, "principal": caller.name, "role": caller.role?.rawValue ?? "developer", "error.code": error.code, "error.message": error.message]
                if caller.onBehalf { fields["via"] = connection.name }
                let reason = error.code + " " + op + " by " + (caller.role?.rawValue ?? "developer")
                for line in refusalLog.refused(reason, who: caller.name, fields, now: clock()) { logger.warning(line.message, line.metadata) }
                if let wait = error.details?["retryAfterMs"].flatMap(Int.init) { hold.refused(connection, retryAfterMs: wait, now: clock()) }
                return Self.errorReply(error)
            }
            logger.debug("request refused", ["op": op, "error.code": error.code, "error.message": error.message])
            return Self.errorReply(error)
        } catch let error as WireError {
            errorCode = error.serviceError.code
            return Self.errorReply(error.serviceError)
        } catch {
            errorCode = ErrorCode.internalError.rawValue
            logger.error("request failed", ["op": op, "error": "\(error)"])
            return Self.errorReply(ServiceError(.internalError, "the service could not complete \(op); nothing was changed"))
        }
    }

    /// A request's head and, when its op's body has a hand-written reader and the frame names its
    /// op first or last (`Wire.namedOp`), the handler's run on the body read in the same pass: an
    /// `ingest.batch` of 20 KB was read twice, once by the head's reader, which skips the body
    /// (checking its names for repeats) to be sure of `op`, and once for the body. Otherwise (or
    /// when the reader gives up) only the head, read as before.
    private func head(of frame: Data) throws(WireError) -> (RequestHead, ((Caller) throws -> Data)?) {
        if let hinted = Wire.namedOp(frame), let onePass = onePassRoutes[hinted], let read = onePass(frame, maxRequestBytes), read.head.op == hinted {
            onePassReads += 1
            return (read.head, read.run)
        }
        return (try Wire.decodeRequestHead(frame, maxBytes: maxRequestBytes), nil)
    }

    /// Writes the summaries of refusals whose 10 s window ended (the request server calls it each second).
    public func flushRefusalLog() {
        let now = clock()
        for line in refusalLog.due(now: now) { logger.warning(line.message, line.metadata) }
        budget.prune(now: now)
        hold.prune(now: now)
    }

    /// The reply to one request message as a request socket received it: one frame, from the
    /// caller its connection proves (`security`); a session whose key was revoked since it opened
    /// is refused, and `revoked` is called.
    public func reply(to message: PeerMessage, security: SocketSecurity, revoked: () -> Void = {}) -> Data {
        guard message.frames.count == 1 else {
            return Self.errorReply(ServiceError(.malformed, "a request is one JSON frame, got \(message.frames.count) frames"))
        }
        guard let caller = security.caller(userId: message.userId, key: message.publicKey) else {
            revoked()
            return Self.errorReply(ServiceError(.forbidden, "the key this connection authenticated with (\(message.userId ?? "unknown")) is no longer in the campus key registry"))
        }
        return handle(message.frames[0], caller: caller)
    }

    public static func errorReply(_ error: ServiceError) -> Data {
        Wire.encode(Reply<Empty>.failure(error))
    }
}
