import Foundation
import Glibc
import Policy
import ServiceRuntime
import ZeroMQ

/// `handshakes`: waves of connections that never get a session, spread over the platform's
/// listeners (request ports and the bus's ports): CURVE clients with keys no registry holds, and
/// plain TCP connections that send a ZMTP greeting without CURVE (issue 28: 16,000 of each
/// opened in under 2 s stalled the pipeline for about 4 s). A wave opens them all as fast as it
/// can, holds the CURVE ones `hold` seconds, closes them, and the next wave opens, for as long as
/// the attack runs. A CURVE client tries once (no reconnect), as a scanner would.
///
/// Descriptors are what bound an attacker on one host (20,000 here): each CURVE key is one libzmq
/// socket connected to every listener (a connection per listener, one descriptor more for the
/// socket), and a plain connection is closed as soon as its greeting is written (the server
/// reads it, and the end, as a client that gave up).
final class HandshakeFlood: AbuseAttack {
    static let curveOption = Option.count("handshake-curve", 0...200_000, default: 16_000, help: "handshakes: CURVE connections with unknown keys each wave opens")
    static let plainOption = Option.count("handshake-plain", 0...200_000, default: 16_000, help: "handshakes: plain connections (a ZMTP greeting without CURVE) each wave opens")
    static let holdOption = Option.seconds("handshake-hold-seconds", .nonNegative, default: 2,
                                           help: "handshakes: seconds a wave's CURVE connections are held before they are closed and the next wave opens (plain ones close once their greeting is written)")
    static let endpointsOption = Option.endpoints("handshake-endpoints", default: [
        "bus@tcp://127.0.0.1:7401", "bus@tcp://127.0.0.1:7402", "bus@tcp://127.0.0.1:7403", "beacon-ingest@tcp://127.0.0.1:7410",
        "region-monitor@tcp://127.0.0.1:7420", "order-service@tcp://127.0.0.1:7430", "kitchen-display@tcp://127.0.0.1:7440",
        "notification-service@tcp://127.0.0.1:7450",
    ], help: "handshakes: the listeners attacked (name@tcp://host:port names the server's key), the connections spread evenly over them")
    static let fromOption = Option<String>("handshake-from", .string, default: "127.0.0.2",
                                           help: "handshakes: the IPv4 address the attack's connections come from (any of 127/8 is this host), so a per-address cap tells it from the steady load")
    static var specs: [OptionSpec] { [curveOption.spec, plainOption.spec, holdOption.spec, endpointsOption.spec, fromOption.spec] }

    /// The settings read from the options above.
    struct Settings {
        var curve: Int
        var plain: Int
        var hold: Double
        var endpoints: [String]
        var from: String

        init(_ config: Configuration) {
            curve = config[HandshakeFlood.curveOption]
            plain = config[HandshakeFlood.plainOption]
            hold = config[HandshakeFlood.holdOption]
            endpoints = config[HandshakeFlood.endpointsOption]
            from = config[HandshakeFlood.fromOption]
        }

        /// The server names whose public keys a CURVE client needs to reach the ZAP handler.
        var servers: [String] { endpoints.map { PeerEndpoint.split($0, defaultName: "bus").name } }
    }

    let name = "handshakes"
    private let settings: Settings
    private let counters = AttackCounters()
    private var runID = ""
    /// Threads the CURVE clients are spread over, each with a context of its own.
    static let curveThreads = 4

    init(settings: AbuseSettings) {
        self.settings = settings.handshakes
    }

    var summary: String {
        "waves of \(settings.curve) CURVE connections with unknown keys and \(settings.plain) plain ones over \(settings.endpoints.count) listeners, "
            + "from \(settings.from), each wave held \(settings.hold) s"
    }

    /// A key of the attack's own: only its server keys are used (the clients' keys are random).
    private var keyName: String { "\(runID)-handshaker" }

    func keys(runID: String) -> [LoadSecurity.Mint] {
        self.runID = runID
        return [LoadSecurity.Mint(name: keyName, role: .operator)]
    }

    func start(context: Context, keys: AttackKeys) throws {
        Self.raiseFileLimit(to: rlim_t(settings.curve * 2 + 4_096))
        let targets = settings.endpoints.map { PeerEndpoint.split($0, defaultName: "bus") }
        let serverKeys = targets.map { keys.keys(keyName, server: $0.name)?.serverKey }
        let hold = settings.hold, from = settings.from
        // libzmq's form for a connection from a given address: tcp://source:port;destination.
        let curveTargets = targets.map { from.isEmpty ? $0.endpoint : $0.endpoint.replacingOccurrences(of: "tcp://", with: "tcp://\(from):0;") }
        var sockets = (settings.curve + targets.count - 1) / max(1, targets.count)
        // One host's descriptors bound a wave (each socket holds one per target and its own): keep
        // 2,048 for the plain connections and 2,048 for the steady load and the health watch.
        let fit = max(1, (Self.descriptorLimit() - 4_096) / (targets.count + 1))
        if sockets > fit {
            counters.add("curve.notOpenedForDescriptors", (sockets - fit) * targets.count)
            sockets = fit
        }
        for part in 0..<Self.curveThreads {
            let count = sockets / Self.curveThreads + (part < sockets % Self.curveThreads ? 1 : 0)
            guard count > 0 else { continue }
            counters.spawn("handshakes curve \(part)") { [counters] in
                Self.curveWaves(count: count, targets: curveTargets, serverKeys: serverKeys, hold: hold, counters: counters)
            }
        }
        let plain = settings.plain
        if plain > 0 {
            counters.spawn("handshakes plain") { [counters] in
                Self.plainWaves(count: plain, targets: targets.map(\.endpoint), from: from, hold: hold, counters: counters)
            }
        }
    }

    func stop() -> [(String, Int)] { counters.stopAndWait() }

    /// Waves of `count` CURVE clients, each with a random key, each connected to every one of `targets`.
    private static func curveWaves(count: Int, targets: [String], serverKeys: [String?], hold: Double, counters: AttackCounters) {
        do {
            let context = try Context(ioThreads: 1, maxSockets: Int32(count + 64))
            // Keys no registry holds; made once, reused by every wave.
            var pairs: [CurveKeyPair] = []
            for _ in 0..<count where !counters.isStopped { pairs.append(try CurveKeyPair.generate()) }
            while !counters.isStopped {
                // Each socket holds a descriptor per target and one of its own.
                guard awaitDescriptors(count * (targets.count + 1), counters) else { break }
                var sockets: [Socket] = []
                sockets.reserveCapacity(count)
                for pair in pairs where !counters.isStopped {
                    do {
                        let socket = try Socket(context, .dealer)
                        sockets.append(socket)
                        try socket.setLinger(milliseconds: 0)
                        try socket.setReconnectInterval(milliseconds: -1)
                        for (target, endpoint) in targets.enumerated() {
                            // Without the server's key (plain mode), the client still knocks with CURVE.
                            try socket.setCurveClient(serverKey: serverKeys[target] ?? pair.publicKey, publicKey: pair.publicKey, secretKey: pair.secretKey)
                            try socket.connect(endpoint)
                            counters.add("curve.opened")
                        }
                    } catch {
                        counters.add("curve.failed")
                    }
                }
                pause(hold, counters)
                for socket in sockets { socket.close() }
                counters.add("waves.curve")
                // libzmq's reaper lets the descriptors go in the background.
                pause(0.5, counters)
            }
        } catch {
            counters.add("curve.failed")
        }
    }

    /// Waves of `count` plain TCP connections, each sending a ZMTP 3.0 greeting for the NULL mechanism.
    private static func plainWaves(count: Int, targets: [String], from: String, hold: Double, counters: AttackCounters) {
        let addresses = targets.compactMap(Self.address)
        let source = from.isEmpty ? nil : Self.address("tcp://\(from):0")
        guard !addresses.isEmpty else {
            counters.add("plain.badEndpoint")
            return
        }
        let greeting = Self.nullGreeting
        while !counters.isStopped {
            for index in 0..<count where !counters.isStopped {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                guard fd >= 0 else {
                    counters.add("plain.failed")
                    continue
                }
                if var source {
                    // The port is chosen at connect, per destination: 16,000 binds would run out of ports.
                    var on: Int32 = 1
                    _ = setsockopt(fd, Int32(IPPROTO_IP), 24 /* IP_BIND_ADDRESS_NO_PORT */, &on, socklen_t(MemoryLayout<Int32>.size))
                    let bound = withUnsafePointer(to: &source) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                    }
                    if bound != 0 { counters.add("plain.bindFailed") }
                }
                var address = addresses[index % addresses.count]
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                guard connected == 0 || errno == EINPROGRESS else {
                    counters.add("plain.failed")
                    close(fd)
                    continue
                }
                counters.add("plain.opened")
                // On loopback the connection is usually made at once; one left half-open is an attack too.
                if greeting.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == greeting.count { counters.add("plain.greeted") }
                close(fd)
            }
            counters.add("waves.plain")
            pause(hold, counters)
        }
    }

    /// ZMTP 3.0's greeting: signature, version 3.0, mechanism "NULL", as-server 0, filler.
    static let nullGreeting: [UInt8] = {
        var bytes: [UInt8] = [0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 3, 0]
        bytes += Array("NULL".utf8) + [UInt8](repeating: 0, count: 16)
        bytes += [UInt8](repeating: 0, count: 32)
        return bytes
    }()

    /// "tcp://127.0.0.1:7401" as an IPv4 socket address; nil for another form (a name, IPv6).
    static func address(_ endpoint: String) -> sockaddr_in? {
        guard endpoint.hasPrefix("tcp://"), let colon = endpoint.lastIndex(of: ":"), let port = UInt16(endpoint[endpoint.index(after: colon)...]) else { return nil }
        let host = String(endpoint.dropFirst("tcp://".count)[..<colon])
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        return address
    }

    /// Waits until `needed` more descriptors fit under this process's open-file limit with 2,048
    /// to spare, so the steady load and the health watch in the same process can always open
    /// theirs (libzmq aborts on EMFILE): the previous wave's closed sockets are let go by libzmq's
    /// reaper, at the attacker's priority, in the background. False when the attack stopped.
    private static func awaitDescriptors(_ needed: Int, _ counters: AttackCounters) -> Bool {
        let room = descriptorLimit() - 2_048
        while !counters.isStopped {
            if openDescriptors() + needed <= room { return true }
            counters.add("waits.descriptors")
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// This process's open-file limit.
    private static func descriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return 1_024 }
        return Int(min(limit.rlim_cur, rlim_t(Int32.max)))
    }

    /// How many descriptors this process holds (entries of /proc/self/fd).
    private static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while readdir(directory) != nil { count += 1 }
        return max(0, count - 3)
    }

    /// Sleeps `seconds` in short steps, returning early when the attack stops.
    private static func pause(_ seconds: Double, _ counters: AttackCounters) {
        let end = Reactor.monotonic() + seconds
        while !counters.isStopped && Reactor.monotonic() < end { Thread.sleep(forTimeInterval: 0.05) }
    }

    /// Raises this process's open-file limit to `wanted` (or as far as it may): every connection
    /// is a descriptor, and a libzmq socket one more.
    static func raiseFileLimit(to wanted: rlim_t) {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0, limit.rlim_cur < wanted else { return }
        var raised = rlimit(rlim_cur: wanted, rlim_max: max(limit.rlim_max, wanted))
        // Only root may raise the hard limit; otherwise go as far as it allows.
        if setrlimit(RLIMIT_NOFILE_VALUE, &raised) != 0 {
            raised = rlimit(rlim_cur: min(wanted, limit.rlim_max), rlim_max: limit.rlim_max)
            _ = setrlimit(RLIMIT_NOFILE_VALUE, &raised)
        }
    }

    private static var RLIMIT_NOFILE_VALUE: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
