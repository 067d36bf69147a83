import Foundation
import Glibc
import Messages
import Policy
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// What a listener bounds before any message (issue 28's handshake floods): the connection census
/// and its caps, the accept queue and handshake time, plain attempts counted; and callers told to
/// wait who ask again early, dropped unanswered.
@Suite("Listener bounds: connection caps, handshake counts, early retries")
struct ListenerBoundsTests {
    let logger = Logger(service: "test", instance: "test", minimum: .error)

    // MARK: The census, alone

    @Test("an address holds at most its cap; a connection that ends frees its place")
    func perAddressCap() {
        var census = ConnectionCensus(maxPerAddress: 2, maxPerListener: 0)
        #expect(census.accepted(listener: "L", fd: 10, address: "10.0.0.9") == .admitted)
        #expect(census.accepted(listener: "M", fd: 11, address: "10.0.0.9") == .admitted)
        #expect(census.accepted(listener: "L", fd: 12, address: "10.0.0.9") == .overAddress)
        #expect(census.accepted(listener: "L", fd: 13, address: "10.0.0.7") == .admitted, "another address is not held back")
        census.disconnected(listener: "M", fd: 11)
        #expect(census.accepted(listener: "L", fd: 14, address: "10.0.0.9") == .admitted)
        #expect(census.refusedPerAddress == 1)
        #expect(census.held == 3)
        #expect(census.busiestAddress == 2)
    }

    @Test("a listener holds at most its cap, whatever the addresses")
    func perListenerCap() {
        var census = ConnectionCensus(maxPerAddress: 0, maxPerListener: 3)
        for fd in UInt32(0)..<3 { #expect(census.accepted(listener: "L", fd: fd, address: "10.0.0.\(fd)") == .admitted) }
        #expect(census.accepted(listener: "L", fd: 3, address: "10.0.0.3") == .overListener)
        #expect(census.accepted(listener: "other", fd: 4, address: "10.0.0.4") == .admitted)
        #expect(census.refusedPerListener == 1)
        #expect(census.held(listener: "L") == 3)
    }

    @Test("a descriptor reported accepted again counts its old connection gone: the census never drifts past the descriptors")
    func reusedDescriptor() {
        var census = ConnectionCensus(maxPerAddress: 1, maxPerListener: 0)
        #expect(census.accepted(listener: "L", fd: 5, address: "10.0.0.9") == .admitted)
        // Its end was not read before the descriptor came back.
        #expect(census.accepted(listener: "L", fd: 5, address: "10.0.0.9") == .admitted)
        #expect(census.held == 1)
        census.disconnected(listener: "L", fd: 5)
        census.disconnected(listener: "L", fd: 5)
        #expect(census.held == 0)
        #expect(census.held(address: "10.0.0.9") == 0)
    }

    // MARK: Real sockets

    @Test("a server socket gets the accept queue and handshake time of its limits")
    func socketOptions() throws {
        let context = try Context()
        let socket = try Socket(context, .router)
        defer { socket.close() }
        let limits = ListenerLimits(backlog: 777, handshakeMilliseconds: 1_234, maxPerAddress: 1, maxPerListener: 1)
        try SocketSecurity.plain(logger: logger, limits: limits).secureServer(socket, endpoint: "tcp://127.0.0.1:*")
        #expect(try socket.backlog == 777)
        #expect(try socket.handshakeInterval == 1_234)
    }

    @Test("deployed: connections from one address past its cap are closed as accepted, and counted in health; plain clients are counted")
    func capAndCountsOverTCP() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)").path
        let folder = KeyFolder(path)
        try folder.initialize()
        let context = try Context()
        // A handshake time far beyond the test: only the cap closes connections here.
        let limits = ListenerLimits(backlog: 64, handshakeMilliseconds: 60_000, maxPerAddress: 3, maxPerListener: 0)
        let server = try SocketSecurity.deployed(folder: folder, as: "order-service", serving: context, logger: logger, limits: limits)
        defer { server.close() }
        let router = try Socket(context, .router)
        defer { router.close() }
        try router.setLinger(milliseconds: 0)
        try server.secureServer(router, endpoint: "tcp://127.0.0.1:*")
        try router.bind("tcp://127.0.0.1:*")
        let endpoint = try router.lastEndpoint
        let port = UInt16(endpoint.split(separator: ":").last!)!

        // Six silent TCP connections from one address: three are held, three closed by the server.
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        for _ in 0..<6 { fds.append(try Self.connectTCP(port: port)) }
        let closed = Self.eventually { fds.filter(Self.closedByPeer).count == 3 }
        #expect(closed, "three of six connections closed by the server")
        let details = server.healthDetails
        #expect(details["connections.refused.perAddress"] == "3")
        #expect(details["connections.accepted"] == "6")

        // A plain ZMTP client at the CURVE socket: counted as a failed handshake, no ZAP request.
        for fd in fds { close(fd) }
        fds = []
        #expect(Self.eventually { server.healthDetails["connections.held"] == "0" }, "ended connections leave the census")
        let plain = try Socket(context, .dealer)
        defer { plain.close() }
        try plain.setLinger(milliseconds: 0)
        try plain.connect(endpoint)
        #expect(Self.eventually { (Int(server.healthDetails["handshakes.failed.protocol"] ?? "0") ?? 0) >= 1 })
        #expect(server.zap?.refused == 0, "the plain client never reached the ZAP handler")
    }

    static func connectTCP(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        try #require(rc == 0, "connect: errno \(errno)")
        return fd
    }

    /// Whether the peer closed `fd`: what it sent (a CURVE server's greeting) is read, then a read
    /// that does not block returns 0 or fails with a reset.
    static func closedByPeer(_ fd: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n > 0 { continue }
            if n == 0 { return true }
            return errno != EAGAIN && errno != EWOULDBLOCK
        }
    }

    /// Polls `condition` for up to 5 s.
    static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<100 {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    // MARK: Early retries

    static let operatorCaller = Caller(principal: Principal(name: "op-1", role: .operator, publicKey: ""))

    @Test("a caller told to wait that asks again early is dropped, counted; after the wait it is heard again")
    func holdDropsEarlyRetries() {
        var hold = RefusalHold()
        let before = hold.drops("op-1", now: 0)
        #expect(!before)
        hold.refused(Self.operatorCaller, retryAfterMs: 100, now: 0)
        let early = hold.drops("op-1", now: 0.05)
        let other = hold.drops("op-2", now: 0.05)
        let anonymous = hold.drops(nil, now: 0.05)
        let after = hold.drops("op-1", now: 0.1)
        #expect(early)
        #expect(!other, "another principal is heard")
        #expect(!anonymous, "a connection without a User-Id (plain mode) is heard")
        #expect(!after)
        #expect(hold.dropped == 1)
        #expect(hold.heldCount == 0)
    }

    @Test("services, the edge and requests acting on behalf of someone are never held")
    func holdSparesCarriers() {
        var hold = RefusalHold()
        for caller in [Caller(principal: Principal(name: "edge", role: .edge, publicKey: "")), Caller(principal: Principal(name: "kitchen-display", role: .service, publicKey: "")),
                       Caller.developer] {
            hold.refused(caller, retryAfterMs: 1_000, now: 0)
            let dropped = hold.drops(caller.name, now: 0.5)
            #expect(!dropped)
        }
        #expect(hold.heldCount == 0)
    }

    @Test("through the router: a rate-limited operator's next request before retryAfterMs is held; pruning forgets ended waits")
    func routerHoldsAfterRateLimit() throws {
        let router = RequestRouter(logger: logger)
        var now = 0.0
        router.clock = { now }
        router.on(Op.menuGet, Empty.self) { (_: Empty, _: Caller) -> Empty in Empty() }
        let frame = Wire.encode(Request(op: Op.menuGet, body: Empty()))
        var limited: ServiceError?
        for _ in 0..<1_000 {
            let reply = router.handle(frame, caller: Self.operatorCaller)
            if let error = try Wire.decodeReply(reply, body: Empty.self).error { limited = error; break }
        }
        let error = try #require(limited)
        #expect(error.code == ErrorCode.rateLimited.rawValue)
        let wait = try #require(error.details?["retryAfterMs"].flatMap(Int.init))
        let held = router.hold.drops("op-1", now: now)
        #expect(held)
        now += Double(wait) / 1_000
        router.flushRefusalLog()
        #expect(router.hold.heldCount == 0)
    }
}
