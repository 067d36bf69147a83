import Dispatch
import Foundation
import Messages
import Synchronization
import ZeroMQ

/// A service as a client sees it, with canned answers: a REP socket on its own thread (created,
/// used and closed there) that keeps every request frame and answers each with the reply given
/// for its op. For checking what a command line puts on the wire before the real service exists.
final class FakeService: Sendable {
    private let replies: [String: Data]
    private let received = Mutex<[Data]>([])
    private let bound = Mutex<String?>(nil)
    private let stopFlag = Atomic<Bool>(false)
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    /// `replies`: the whole reply frame for each op; any other op is answered `request.unknownOp`.
    init(replies: [String: Data]) { self.replies = replies }

    /// A success reply frame with `body`.
    static func success<Body: Codable & Sendable>(_ body: Body) -> Data { Wire.encode(Reply.success(body)) }

    /// Binds a free loopback port and returns its endpoint.
    func start() throws -> String {
        Thread.detachNewThread { self.serve() }
        ready.wait()
        guard let endpoint = bound.withLock({ $0 }) else { throw PlatformError("the fake service could not bind") }
        return endpoint
    }

    /// Every request frame so far, oldest first.
    var requests: [Data] { received.withLock { $0 } }

    func stop() {
        guard !stopFlag.exchange(true, ordering: .acquiringAndReleasing) else { return }
        done.wait()
    }

    private func serve() {
        defer { done.signal() }
        let socket: Socket
        do {
            socket = try Socket(try Context(), .rep)
            try socket.setLinger(milliseconds: 0)
            try socket.bind("tcp://127.0.0.1:*")
            let endpoint = try socket.lastEndpoint
            bound.withLock { $0 = endpoint }
        } catch {
            ready.signal()
            return
        }
        defer { socket.close() }
        ready.signal()
        while !stopFlag.load(ordering: .acquiring) {
            guard let frames = try? socket.receiveMultipart(timeoutMilliseconds: 20), let frame = frames.first else { continue }
            received.withLock { $0.append(frame) }
            let op = (try? Wire.decodeRequestHead(frame))?.op ?? ""
            _ = try? socket.send(replies[op] ?? Wire.encode(Reply<Empty>.failure(ServiceError(.unknownOp, "the fake answers \(replies.keys.sorted())"))))
        }
    }
}
