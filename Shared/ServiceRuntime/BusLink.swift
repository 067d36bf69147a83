import Foundation
import ZeroMQ

/// Whether this process's publisher is connected to the bus, from libzmq's socket monitor:
/// health says `bus.unreachable` when it has not been connected for `graceSeconds`, and
/// `bus.refused` when the bus turned its key down (deployed mode: a key the bus's registry does
/// not hold, or the wrong bus key). Connected means the handshake completed, not merely TCP: a
/// CURVE link the bus refuses connects and drops again and again, and carries nothing.
public final class BusLink {
    private let monitor: Socket
    private var connected = 0
    private var downSince: Double? = Reactor.monotonic()
    private let graceSeconds: Double
    /// When the last handshake failed, while no link is up.
    private var refusedAt: Double?

    /// Watches `publisher` (call before it connects, so its first connection is seen).
    public init(watching publisher: Socket, context: Context, graceSeconds: Double = 3) throws {
        self.graceSeconds = graceSeconds
        let endpoint = "inproc://bus-link-\(UInt64.random(in: 0...UInt64.max))"
        let events = [SocketEvent.handshakeSucceeded, SocketEvent.disconnected, SocketEvent.handshakeFailedAuth,
                      SocketEvent.handshakeFailedProtocol, SocketEvent.handshakeFailedNoDetail].reduce(Int32(0)) { $0 | Int32($1) }
        try publisher.monitor(endpoint, events: events)
        monitor = try Socket(context, .pair)
        try monitor.setLinger(milliseconds: 0)
        try monitor.connect(endpoint)
    }

    /// Reads monitor events whenever there are some.
    public func attach(to reactor: Reactor) {
        reactor.onReadable(monitor) { [unowned self] in
            while let frames = try self.monitor.tryReceiveMultipart() {
                guard let event = SocketEvent(frames: frames) else { continue }
                self.observe(event.event)
            }
        }
    }

    func observe(_ event: UInt16) {
        switch event {
        case SocketEvent.handshakeSucceeded:
            connected += 1
            downSince = nil
            refusedAt = nil
        case SocketEvent.disconnected:
            // A connection whose handshake failed disconnects too, without having counted.
            connected = max(0, connected - 1)
            if connected == 0, downSince == nil { downSince = Reactor.monotonic() }
        case SocketEvent.handshakeFailedAuth, SocketEvent.handshakeFailedProtocol, SocketEvent.handshakeFailedNoDetail:
            if connected == 0 { refusedAt = Reactor.monotonic() }
        default:
            break
        }
    }

    /// True when the bus refused the last handshake and no link is up.
    public var isRefused: Bool { refusedAt != nil && connected == 0 }

    /// True when the bus has been out of reach for longer than the grace period.
    public var isUnreachable: Bool {
        guard let downSince else { return false }
        return Reactor.monotonic() - downSince > graceSeconds
    }

    public func close() {
        monitor.close()
    }
}
