import Foundation
import Messages

/// Dispatches requests by `op` to typed handlers and turns every failure into a typed error reply.
///
/// Decoding is strict (unknown op, malformed JSON, a missing or mistyped field → an error code
/// naming the field); a handler that throws `ServiceError` answers with it; anything else is
/// logged and answered with `internal.error`. Handlers write through `ServiceHost.write`, whose
/// transaction rolls back when they throw, so a refused request leaves no half-written state.
public final class RequestRouter {
    private var routes: [String: (Data) throws -> Data] = [:]
    private let logger: Logger
    /// Requests larger than this are refused unread.
    public var maxRequestBytes: Int

    public init(logger: Logger, maxRequestBytes: Int = Wire.defaultMaxFrameBytes) {
        self.logger = logger
        self.maxRequestBytes = maxRequestBytes
    }

    /// The ops this router answers.
    public var ops: [String] { routes.keys.sorted() }

    /// Answers `op` with `handler`, its body decoded as `Body`.
    public func on<Body: Codable & Sendable, Result: Codable & Sendable>(_ op: String, _ body: Body.Type, _ handler: @escaping (Body) throws -> Result) {
        let limit = { [unowned self] in self.maxRequestBytes }
        routes[op] = { frame in
            let request = try Wire.decodeRequest(frame, body: Body.self, maxBytes: limit())
            return Wire.encode(Reply<Result>.success(try handler(request.body)))
        }
    }

    /// Answers `op` with a handler that builds the reply bytes itself (replay embeds stored JSON).
    public func onRaw(_ op: String, _ handler: @escaping (Data) throws -> Data) {
        routes[op] = handler
    }

    /// The reply to one request frame. Never throws: every failure becomes an error reply.
    public func handle(_ frame: Data) -> Data {
        var op = "?"
        do {
            let head = try Wire.decodeRequestHead(frame, maxBytes: maxRequestBytes)
            op = Quoting.cut(head.op)
            guard let route = routes[head.op] else {
                throw ServiceError(.unknownOp, "unknown op \(Quoting.quoted(head.op)); this service answers: \(ops.joined(separator: ", "))")
            }
            return try route(frame)
        } catch let error as ServiceError {
            logger.debug("request refused", ["op": op, "error.code": error.code, "error.message": error.message])
            return Self.errorReply(error)
        } catch let error as WireError {
            return Self.errorReply(error.serviceError)
        } catch {
            logger.error("request failed", ["op": op, "error": "\(error)"])
            return Self.errorReply(ServiceError(.internalError, "the service could not complete \(op); nothing was changed"))
        }
    }

    public static func errorReply(_ error: ServiceError) -> Data {
        Wire.encode(Reply<Empty>.failure(error))
    }
}
