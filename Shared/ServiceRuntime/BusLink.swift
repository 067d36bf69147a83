import Foundation
import ZeroMQ

/// Whether this process's publisher is connected to the bus, from libzmq's socket monitor:
/// health says `bus.unreachable` when it has not been connected for `graceSeconds`.
public final class BusLink {
    private let monitor: Socket
    private var connected = 0
    private var downSince: Double? = Reactor.monotonic()
    private let graceSeconds: Double

    /// Watches `publisher` (call before it connects, so its first connection is seen).
    public init(watching publisher: Socket, context: Context, graceSeconds: Double = 3) throws {
        self.graceSeconds = graceSeconds
        let endpoint = "inproc://bus-link-\(UInt64.random(in: 0...UInt64.max))"
        try publisher.monitor(endpoint, events: Int32(SocketEvent.connected) | Int32(SocketEvent.disconnected))
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
        if event == SocketEvent.connected {
            connected += 1
            downSince = nil
        } else if event == SocketEvent.disconnected {
            connected = max(0, connected - 1)
            if connected == 0, downSince == nil { downSince = Reactor.monotonic() }
        }
    }

    /// True when the bus has been out of reach for longer than the grace period.
    public var isUnreachable: Bool {
        guard let downSince else { return false }
        return Reactor.monotonic() - downSince > graceSeconds
    }

    public func close() {
        monitor.close()
    }
}
