import Dispatch
import Foundation
import Messages
import ServiceRuntime
import Synchronization
import ZeroMQ

/// A service's request endpoint on its own thread, for tests whose client blocks on the test
/// thread: a REP socket created, used and closed on the server thread, answering through a
/// `RequestRouter` that `routes` sets up there.
final class RouterServer: Sendable {
    private let routes: @Sendable (RequestRouter) -> Void
    private let stopFlag = Atomic<Bool>(false)
    private let requestCount = Atomic<Int>(0)
    private let endpoint = Mutex<String?>(nil)
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    init(routes: @escaping @Sendable (RequestRouter) -> Void) { self.routes = routes }

    /// Requests answered so far.
    var requests: Int { requestCount.load(ordering: .acquiring) }

    /// Starts the thread and returns the endpoint it bound (nil when binding failed).
    func start(context: Context, bind: String) -> String? {
        Thread.detachNewThread { self.serve(context: context, bind: bind) }
        ready.wait()
        return endpoint.withLock { $0 }
    }

    /// Stops the thread and waits until it has closed its socket.
    func stopAndWait() {
        stopFlag.store(true, ordering: .releasing)
        done.wait()
    }

    private func serve(context: Context, bind: String) {
        defer { done.signal() }
        let socket: Socket
        do {
            socket = try Socket(context, .rep)
            try socket.setLinger(milliseconds: 0)
            try socket.bind(bind)
            let bound = try socket.lastEndpoint
            endpoint.withLock { $0 = bound }
        } catch {
            ready.signal()
            return
        }
        defer { socket.close() }
        ready.signal()

        let router = RequestRouter(logger: silentLogger)
        routes(router)
        while !stopFlag.load(ordering: .acquiring) {
            guard let frames = try? socket.receiveMultipart(timeoutMilliseconds: 20) else { continue }
            let reply = router.handle(frames[0])
            requestCount.add(1, ordering: .releasing)
            _ = try? socket.send(reply)
        }
    }
}
