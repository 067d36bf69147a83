import Foundation
import Glibc
import Messages
import Policy
import Synchronization
import ZeroMQ

/// The process's ZAP handler (ZeroMQ RFC 27): libzmq asks it about every CURVE handshake on any
/// server socket of the context, and it answers from the campus key registry — 200 with the
/// principal's name as User-Id (and the key as the `X-Key` property), or 400 for a key the
/// registry does not hold. Without a handler libzmq lets every CURVE client in, so deployed mode
/// makes server sockets only once `start` has bound it (`SocketSecurity.secureServer`).
///
/// It runs on its own thread, as CZMQ's zauth actor does: handshakes go on while the service's
/// reactor is busy, and its socket never leaves that thread. The same thread reads the socket
/// monitors of the process's listeners (`watch`): it keeps the `ConnectionCensus`, closes a
/// connection past its address's or listener's cap as soon as it is accepted, and counts the
/// handshakes that fail before any ZAP request (plain clients, timeouts).
public final class ZAPHandler: @unchecked Sendable {
    public static let endpoint = "inproc://zeromq.zap.01"

    private let registry: LiveRegistry
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let acceptedCount = Atomic<Int>(0)
    private let refusedCount = Atomic<Int>(0)
    /// Numbers accepted handshakes: the `X-Session` property tells one connection from another
    /// of the same key (the bus's subscription ledger mirrors libzmq's per-connection record).
    private let sessionCount = Atomic<Int>(0)
    private var thread: Thread?
    /// Refusals as the log sees them: the first of each reason, then a summary a window (ZAP thread only).
    private var refusalLog = RefusalLog()
    /// Refusals by reason since start, for health: the unknown keys of a flood apart from a
    /// plain client or a role knocking at the wrong socket.
    private let refusedNotCurve = Atomic<Int>(0), refusedUnknownKey = Atomic<Int>(0), refusedRole = Atomic<Int>(0)
    /// ZAP domains whose sockets admit only some roles (the bus's capture socket: operators).
    private let admitted = Mutex<[String: Set<Role>]>([:])
    /// Connections by listener and address, with their caps (written on the ZAP thread, read by health).
    let census: Mutex<ConnectionCensus>
    /// Monitor endpoints of listeners not yet read (the ZAP thread connects to them on its next turn).
    private let pendingMonitors = Mutex<[String]>([])
    private let monitorCount = Atomic<Int>(0)
    /// Refused connections and failed handshakes in the log, summarized like refused keys (ZAP thread only).
    private var connectionLog = RefusalLog(first: "connection refused", summary: "connections refused")

    /// Makes sockets of ZAP `domain` admit only keys of `roles`.
    public func restrict(domain: String, to roles: Set<Role>) {
        admitted.withLock { $0[domain] = roles }
    }

    public init(registry: LiveRegistry, logger: Logger, limits: ListenerLimits = .defaults) {
        self.registry = registry
        self.logger = logger
        census = Mutex(ConnectionCensus(maxPerAddress: limits.maxPerAddress, maxPerListener: limits.maxPerListener))
    }

    /// The census as it stands (health).
    public var censusSnapshot: ConnectionCensus { census.withLock { $0 } }

    /// Reads `socket`'s monitor from now on (call on the socket's thread, before it binds): its
    /// connections are counted and capped, its failed handshakes counted.
    public func watch(_ socket: Socket) throws {
        let endpoint = "inproc://zap-monitor-\(monitorCount.add(1, ordering: .relaxed).newValue)-\(UInt32.random(in: 0...UInt32.max))"
        try socket.monitor(endpoint, events: SocketEvent.censusMask)
        pendingMonitors.withLock { $0.append(endpoint) }
    }

    /// Handshakes accepted and refused since start.
    public var accepted: Int { acceptedCount.load(ordering: .relaxed) }
    public var refused: Int { refusedCount.load(ordering: .relaxed) }
    /// Refused handshakes by reason: `notCurve` (a client without CURVE reaching the handler),
    /// `unknownKey`, `roleNotAdmitted`; the rest of `refused` were malformed ZAP requests.
    public var refusedByReason: [String: Int] {
        ["notCurve": refusedNotCurve.load(ordering: .relaxed), "unknownKey": refusedUnknownKey.load(ordering: .relaxed),
         "roleNotAdmitted": refusedRole.load(ordering: .relaxed)]
    }
    public var isRunning: Bool { thread != nil && !stopping.load(ordering: .acquiring) }

    /// Binds the ZAP endpoint in `context` and starts answering; throws when it cannot bind
    /// (another handler already holds the endpoint in this context).
    public func start(in context: Context) throws {
        let ready = DispatchSemaphore(value: 0)
        let outcome = Mutex<Error?>(nil)
        let thread = Thread { [self] in
            let socket: Socket
            do {
                socket = try Socket(context, .rep)
                try socket.setLinger(milliseconds: 0)
                try socket.bind(Self.endpoint)
            } catch {
                outcome.withLock { $0 = error }
                ready.signal()
                finished.signal()
                return
            }
            ready.signal()
            serve(socket, context: context)
            socket.close()
            finished.signal()
        }
        thread.name = "zap"
        thread.start()
        ready.wait()
        if let error = outcome.withLock({ $0 }) { throw SecurityError("the ZAP handler could not bind \(Self.endpoint): \(error)") }
        self.thread = thread
    }

    /// Stops the thread and closes its socket (within a quarter second).
    public func stop() {
        guard thread != nil, !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
    }

    private func serve(_ socket: Socket, context: Context) {
        var monitors: [Socket] = []
        defer { for monitor in monitors { monitor.close() } }
        while !stopping.load(ordering: .acquiring) {
            do {
                let now = Reactor.monotonic()
                for line in refusalLog.due(now: now) + connectionLog.due(now: now) { logger.warning(line.message, line.metadata) }
                for endpoint in pendingMonitors.withLock({ pending in defer { pending = [] }; return pending }) {
                    let monitor = try Socket(context, .pair)
                    try monitor.setLinger(milliseconds: 0)
                    try monitor.connect(endpoint)
                    monitors.append(monitor)
                }
                var poller = Poller()
                poller.register(socket)
                for monitor in monitors { poller.register(monitor) }
                let ready = try poller.poll(timeoutMilliseconds: 250)
                // ZAP requests first: they hold honest handshakes.
                while let frames = try socket.tryReceiveMultipart() {
                    try socket.send(multipart: answer(frames))
                }
                var stopped: [Int] = []
                for index in ready where index > 0 {
                    // A bounded turn per monitor, so a flood's events cannot hold the ZAP requests.
                    for _ in 0..<1_024 {
                        guard let frames = try monitors[index - 1].tryReceiveMultipart() else { break }
                        guard let event = SocketEvent(frames: frames) else { continue }
                        if event.event == SocketEvent.monitorStopped {
                            stopped.append(index - 1)
                            break
                        }
                        observe(event)
                    }
                }
                for index in stopped.sorted(by: >) { monitors.remove(at: index).close() }
            } catch {
                if error.isTerminated { return }
                logger.error("ZAP handler failed a request", ["error": "\(error)"])
            }
        }
    }

    /// One event of a listener's monitor: a connection accepted (admitted, or shut down over a
    /// cap), ended, or a handshake that failed before a ZAP request.
    private func observe(_ event: SocketEvent) {
        switch event.event {
        case SocketEvent.accepted:
            let address = Self.peerAddress(Int32(bitPattern: event.value)) ?? "?"
            let admission = census.withLock { $0.accepted(listener: event.endpoint, fd: event.value, address: address) }
            guard admission != .admitted else { return }
            // libzmq owns the descriptor: shutting it down (not closing it) makes its engine end the
            // connection, with no handshake, as if the peer had gone.
            _ = Glibc.shutdown(Int32(bitPattern: event.value), Int32(SHUT_RDWR))
            logConnection(admission.rawValue, who: address, ["peer.address": address, "listener": event.endpoint])
        case SocketEvent.disconnected:
            census.withLock { $0.disconnected(listener: event.endpoint, fd: event.value) }
        case SocketEvent.handshakeFailedProtocol:
            census.withLock { $0.handshakeFailed(protocol: true) }
            logConnection("handshake failed: not CURVE or not ZMTP", who: event.endpoint, ["listener": event.endpoint])
        case SocketEvent.handshakeFailedNoDetail:
            census.withLock { $0.handshakeFailed(protocol: false) }
        default:
            break
        }
    }

    private func logConnection(_ reason: String, who: String, _ metadata: [String: String]) {
        for line in connectionLog.refused(reason, who: who, metadata, now: Reactor.monotonic()) { logger.warning(line.message, line.metadata) }
    }

    /// The IP address of the peer of TCP descriptor `fd`; nil when it is not a connected IP socket (any more).
    static func peerAddress(_ fd: Int32) -> String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) } }
        guard got == 0 else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            var address = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr } }
            guard inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil else { return nil }
        case AF_INET6:
            var address = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr } }
            guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return nil }
        default:
            return nil
        }
        return String(cString: text)
    }

    /// The reply to one ZAP request: version, request id, status code and text, user id, metadata.
    func answer(_ frames: [Data]) -> [Data] {
        let requestId = frames.count > 1 ? frames[1] : Data()
        func reply(_ code: String, _ text: String, user: String = "", metadata: Data = Data()) -> [Data] {
            [Data("1.0".utf8), requestId, Data(code.utf8), Data(text.utf8), Data(user.utf8), metadata]
        }
        // version, request id, domain, address, routing id, mechanism, credentials…
        guard frames.count >= 6, frames[0] == Data("1.0".utf8) else {
            refusedCount.add(1, ordering: .relaxed)
            return reply("500", "malformed ZAP request")
        }
        let address = String(decoding: frames[3], as: UTF8.self)
        guard frames[5] == Data("CURVE".utf8), frames.count == 7, let key = Z85.encodeKey(frames[6]) else {
            refusedCount.add(1, ordering: .relaxed)
            refusedNotCurve.add(1, ordering: .relaxed)
            warnRefused("not CURVE", who: address, ["peer.address": address])
            return reply("400", "CURVE required")
        }
        guard let principal = registry.current.principal(key: key) else {
            refusedCount.add(1, ordering: .relaxed)
            refusedUnknownKey.add(1, ordering: .relaxed)
            warnRefused("unknown key", who: key, ["key": key, "peer.address": address])
            return reply("400", "unknown key")
        }
        let domain = String(decoding: frames[2], as: UTF8.self)
        if let roles = admitted.withLock({ $0[domain] }), !roles.contains(principal.role) {
            refusedCount.add(1, ordering: .relaxed)
            refusedRole.add(1, ordering: .relaxed)
            warnRefused("role not admitted", who: principal.name, ["principal": principal.name, "role": principal.role.rawValue,
                                                                  "zap.domain": domain, "peer.address": address])
            return reply("400", "role not admitted")
        }
        acceptedCount.add(1, ordering: .relaxed)
        let session = sessionCount.add(1, ordering: .relaxed).newValue
        logger.debug("handshake accepted", ["principal": principal.name, "role": principal.role.rawValue, "peer.address": address])
        return reply("200", "OK", user: principal.name, metadata: Self.metadata(["X-Key": key, "X-Session": String(session)]))
    }

    /// Logs a refused handshake: the first of its reason at once, the rest of the next 10 s as one
    /// summary (`RefusalLog`), so a flood of distinct keys cannot flood the log. Runs on the ZAP
    /// thread only.
    private func warnRefused(_ reason: String, who: String, _ metadata: [String: String]) {
        for line in refusalLog.refused(reason, who: who, metadata, now: Reactor.monotonic()) { logger.warning(line.message, line.metadata) }
    }

    /// ZMTP metadata: per property a one-byte name length, the name, a four-byte big-endian value
    /// length, the value.
    static func metadata(_ properties: [String: String]) -> Data {
        var data = Data()
        for (name, value) in properties.sorted(by: { $0.key < $1.key }) {
            let n = Array(name.utf8), v = Array(value.utf8)
            data.append(UInt8(n.count))
            data.append(contentsOf: n)
            withUnsafeBytes(of: UInt32(v.count).bigEndian) { data.append(contentsOf: $0) }
            data.append(contentsOf: v)
        }
        return data
    }
}
