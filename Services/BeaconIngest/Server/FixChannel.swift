import Messages
import ServiceRuntime
import ZeroMQ

/// The direct PUSH channel that carries location fixes to region-monitor. Coordinates never cross
/// the bus, where anyone may subscribe: they go only to the shard's region-monitor.
///
/// In deployed mode each PUSH socket is a CURVE client of its region-monitor, which accepts fixes
/// only from a beacon-ingest key. An endpoint may name the server's principal
/// (`region-monitor-s0@tcp://region-monitor-s0:7425`); without a name it is `region-monitor`.
final class FixChannel {
    /// The server name an endpoint without one stands for.
    static let defaultServer = "region-monitor"

    private let context: Context
    private let security: SocketSecurity
    private let events: EventWriter
    /// One socket for every shard, or one per shard in shard order.
    private var senders: [Socket] = []
    /// Fixes not sent because region-monitor was gone or far behind.
    private(set) var dropped = 0

    init(context: Context, security: SocketSecurity, events: EventWriter) {
        self.context = context
        self.security = security
        self.events = events
    }

    /// Connects one PUSH socket per endpoint (region-monitor may start later: ZeroMQ reconnects).
    func connect(_ endpoints: [String]) throws {
        for value in endpoints {
            let (server, endpoint) = PeerEndpoint.split(value, defaultName: Self.defaultServer)
            let socket = try Socket(context, .push)
            try socket.setLinger(milliseconds: 0)
            try socket.setSendHighWaterMark(100_000)
            try socket.setReconnectInterval(milliseconds: 100, maxMilliseconds: 2_000)
            try security.secureClient(socket, server: server)
            try socket.connect(endpoint)
            senders.append(socket)
        }
    }

    /// Sends the fixes of a device in `shard` on `topic`; a fix that cannot go now is counted and
    /// dropped: a fix is best-effort, like a sighting.
    func send(_ fixes: [LocationFix], shard: Int, topic: String) throws {
        guard !fixes.isEmpty else { return }
        let sender = senders.count == 1 ? senders[0] : senders[shard]
        for fix in fixes {
            let sent = try events.sendBestEffort(on: sender, .locationFix, topic: topic, stream: "location", .locationFix(fix))
            if !sent { dropped += 1 }
        }
    }
}
