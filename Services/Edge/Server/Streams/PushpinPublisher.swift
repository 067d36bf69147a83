import Foundation
import ServiceRuntime
import ZeroMQ

/// The PUSH socket to Pushpin's `push_in_spec` (its handler's PULL socket, which binds). Sends
/// never block the edge's loop: while Pushpin is away, up to `highWaterMark` items wait in the
/// socket and the rest are dropped and counted (a client that reconnects reads them from the
/// journal).
final class PushpinPublisher {
    /// Items queued for a Pushpin that is not reading, before new ones are dropped.
    static let highWaterMark: Int32 = 100_000

    private let socket: Socket
    let endpoint: String
    /// Items handed to the socket, and items dropped because it was full.
    private(set) var published = 0
    private(set) var dropped = 0

    init(context: Context, endpoint: String) throws {
        self.endpoint = endpoint
        socket = try Socket(context, .push)
        try socket.setSendHighWaterMark(Self.highWaterMark)
        try socket.setLinger(milliseconds: 500)
        try socket.setReconnectInterval(milliseconds: 100, maxMilliseconds: 2_000)
        try socket.connect(endpoint)
    }

    /// Hands one item to the socket without waiting.
    func publish(_ item: PushpinPublishItem) {
        do {
            try socket.send(item.message, dontWait: true)
            published += 1
        } catch {
            dropped += 1
        }
    }

    /// Closes the socket, on the owning thread.
    func close() { socket.close() }
}
