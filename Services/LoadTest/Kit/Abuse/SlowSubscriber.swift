import Foundation
import Messages
import Policy
import ServiceRuntime
import ZeroMQ

extension AbuseSettings {
    static let slowSubscribers = Option.count("slow-subscribers", 0...1_000, default: 4,
                                              help: "slow-subscriber: operator subscribers of everything (SUB \"\") that never read")
    static let slowReaders = Option.count("slow-readers", 0...1_000, default: 1,
                                          help: "slow-subscriber: operator subscribers of everything that read 10 messages a second")
}

/// `slow-subscriber`: operator SUB sockets subscribed to everything that never read (a `cafectl
/// tail` piped into a pager that stopped), and some that read 10 messages a second (issue 28: one
/// such subscriber grew the bus from 41 to 245 MB in 60 s, kept). Each watches its own connection:
/// `cut` counts the times the bus ended it (libzmq reconnects and subscribes again by itself).
final class SlowSubscriber: AbuseAttack {
    let name = "slow-subscriber"
    private let endpoint: String
    private let stalled: Int
    private let readers: Int
    private let counters = AttackCounters()
    private var runID = ""
    /// The bus's request endpoint, asked for its cut counts when the attack stops.
    private let busHealth: String
    private var healthClient: (context: Context, address: String, curve: RequestClient.CurveClientKeys?)?

    init(settings: AbuseSettings) {
        busHealth = settings.load.bus
        endpoint = settings.busSub
        stalled = settings.slowSubscribers
        readers = settings.slowReaders
    }

    var summary: String { "\(stalled) operators subscribed to everything at \(endpoint) never reading, \(readers) reading 10 messages a second" }

    private func keyName(_ index: Int) -> String { "\(runID)-slow-\(index)" }

    func keys(runID: String) -> [LoadSecurity.Mint] {
        self.runID = runID
        return (0..<(stalled + readers)).map { LoadSecurity.Mint(name: keyName($0), role: .operator) }
    }

    func start(context: Context, keys: AttackKeys) throws {
        let (server, address) = PeerEndpoint.split(endpoint, defaultName: "bus")
        let (healthServer, healthAddress) = PeerEndpoint.split(busHealth, defaultName: "bus")
        healthClient = (context, healthAddress, keys.keys(keyName(0), server: healthServer))
        for index in 0..<(stalled + readers) {
            let curve = keys.keys(keyName(index), server: server)
            let reads = index >= stalled
            counters.spawn("slow subscriber \(index)") { [counters] in
                do {
                    let socket = try Socket(context, .sub)
                    defer { socket.close() }
                    try socket.setLinger(milliseconds: 0)
                    if let curve { try socket.setCurveClient(serverKey: curve.serverKey, publicKey: curve.keyPair.publicKey, secretKey: curve.keyPair.secretKey) }
                    // Its own connection's end, as libzmq's monitor sees it: the bus cut it.
                    let monitorEndpoint = "inproc://abuse.slow.\(index).\(UInt32.random(in: 0...UInt32.max))"
                    try socket.monitor(monitorEndpoint, events: Int32(SocketEvent.disconnected))
                    let events = try Socket(context, .pair)
                    defer { events.close() }
                    try events.setLinger(milliseconds: 0)
                    try events.connect(monitorEndpoint)
                    try socket.subscribe("")
                    try socket.connect(address)
                    while !counters.isStopped {
                        Thread.sleep(forTimeInterval: 0.1)
                        while let frames = try events.tryReceiveMultipart() {
                            if SocketEvent(frames: frames)?.event == SocketEvent.disconnected { counters.add("cut") }
                        }
                        if reads, let frames = try socket.tryReceiveMultipart() {
                            counters.add("read")
                            counters.add("read.bytes", frames.reduce(0) { $0 + $1.count })
                        }
                    }
                } catch {
                    counters.add("socket.failed")
                }
            }
        }
    }

    /// Its counts, and the bus's cuts since it started (from its health, asked with the attack's first key).
    func stop() -> [(String, Int)] {
        var counts = counters.stopAndWait()
        guard let health = healthClient else { return counts }
        let client = RequestClient(context: health.context, endpoint: health.address, timeoutMilliseconds: 2_000, curve: health.curve)
        defer { client.close() }
        guard let status = try? client.call(Op.health, Empty(), as: HealthStatus.self) else { return counts + [("bus.health.unanswered", 1)] }
        for key in ["subscribers.cut.slow", "subscribers.cut.subscriptionFlood"] {
            if let value = status.details[key].flatMap(Int.init) { counts.append(("bus." + key, value)) }
        }
        return counts
    }
}
