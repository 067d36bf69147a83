import Foundation
import KitchenCore
import Messages
import SQLite
import ServiceRuntime
import ZeroMQ

/// Listens to heartbeats on the bus with a socket of its own, for `LinkMonitor`: the kitchen's
/// own heartbeat coming back proves the bus link, order-service's proves that link, and the
/// consumer cursor says whether the queue has caught up with what order-service announced.
final class LinkWatcher {
    private let host: ServiceHost
    private let settings: KitchenSettings
    private var monitor: LinkMonitor
    private var orderSource: String?
    private var socket: Socket?

    init(host: ServiceHost, settings: KitchenSettings) throws {
        self.host = host
        self.settings = settings
        monitor = LinkMonitor(startedAt: host.clock.now())
    }

    func start() throws {
        let socket = try Socket(host.context, .sub)
        try socket.setLinger(milliseconds: 0)
        try socket.setReconnectInterval(milliseconds: 100, maxMilliseconds: 1_000)
        try socket.subscribe("heartbeat.")
        try socket.connect(host.config.string("bus-sub"))
        self.socket = socket
        host.reactor.onReadable(socket) { [unowned self] in try self.drain() }
    }

    private func drain() throws {
        guard let socket else { return }
        for _ in 0..<256 {
            guard let frames = try socket.tryReceiveMultipart() else { return }
            guard frames.count == 2, let envelope = try? Wire.decodeEnvelope(frames[1], maxBytes: host.maxMessageBytes),
                  case .heartbeat(let heartbeat) = envelope.body else { continue }
            let now = host.clock.now()
            if envelope.source == host.outbox.source {
                monitor.ownHeartbeat(at: now)
            } else if heartbeat.service == "order-service" {
                orderSource = envelope.source
                monitor.orderHeartbeat(at: now, lastSeq: heartbeat.streams["order"] ?? 0)
            }
        }
    }

    /// Closes the heartbeat socket on the owning thread, after the reactor stopped.
    func close() {
        socket?.close()
        socket = nil
    }

    /// The links now, as replies and the screen show them.
    func status() -> KitchenLink {
        var cursor: UInt64 = 0
        if let orderSource, let row = try? host.db.query("SELECT seq FROM consumer_cursors WHERE source = ? AND stream = 'order'", orderSource).first {
            cursor = UInt64(row.int64("seq"))
        }
        return monitor.status(at: host.clock.now(), cursor: cursor, settings: settings)
    }
}
