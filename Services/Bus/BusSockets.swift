import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// How the bus makes its two proxy sockets, so it can make them again: the XSUB side publishers
/// connect to and the XPUB side subscribers connect to, secured and bound as the mode says.
struct BusSockets {
    let context: Context
    let security: SocketSecurity
    let hwm: Int32
    /// The services' `--max-message-bytes`: the XSUB side takes frames up to twice it.
    let maxMessageBytes: Int
    /// The XPUB side's send high-water mark, sized from a byte budget (`BusOptions.subscriberHighWaterMark`).
    let subscriberHighWaterMark: Int32
    /// The longest subscription prefix: a subscription message is it and a flag byte.
    let maxPrefixBytes: Int
    /// Watches every subscriber connection of the XPUB side (made before each XPUB socket binds).
    let watch: SubscriberWatch?
    let logger: Logger

    /// Subscription messages libzmq may hold for the bus to read, per subscriber connection. The
    /// bus reads them at a bounded pace; libzmq records each in its own trie as it takes them.
    static let subscriptionHighWaterMark: Int32 = 1_000
    /// What the transport bound leaves above the prefix bound: the flag byte and CURVE's framing
    /// (33 bytes a message), and room for its handshake, whose INITIATE (about 300 bytes with the
    /// peer's metadata) is read under the same bound. A prefix between the two is refused by the gate.
    static let framingBytes = 256

    /// The XSUB side, bound to `endpoint`.
    func frontend(_ endpoint: String) throws -> Socket {
        let socket = try Socket(context, .xsub)
        try socket.setReceiveHighWaterMark(hwm)
        try socket.setSendHighWaterMark(hwm)
        try socket.setLinger(milliseconds: 0)
        try socket.setMaxMessageSize(bytes: Int64(maxMessageBytes) * 2)
        try security.secureServer(socket, endpoint: endpoint)
        try bind(socket, endpoint)
        return socket
    }

    /// The XPUB side, bound to `endpoint`. Plain mode: verbose, so every subscriber's subscribe and
    /// unsubscribe reaches the publishers and two subscribers to one prefix do not hide each other.
    /// Deployed mode: manual, so the bus decides each subscription itself (`SubscriptionGate`).
    ///
    /// What it holds for one subscriber is bounded in bytes: libzmq's mark counts messages, so it is
    /// the byte budget over the largest message; past it libzmq drops what that subscriber would get
    /// (best effort; a consumer of a durable stream sees the gap and replays), and a subscriber that
    /// stays there is cut (`SubscriberWatch`).
    func backend(_ endpoint: String) throws -> Socket {
        let socket = try Socket(context, .xpub)
        try socket.setSendHighWaterMark(subscriberHighWaterMark)
        try socket.setReceiveHighWaterMark(Self.subscriptionHighWaterMark)
        try socket.setLinger(milliseconds: 500)
        // What comes in on this side is subscriptions: a subscriber that sends more (a prefix well
        // above the bound) is dropped by the transport before libzmq records or the bus reads it.
        try socket.setMaxMessageSize(bytes: Int64(maxPrefixBytes + Self.framingBytes))
        if security.mode == .deployed {
            try socket.setXPubManual(true)
        } else {
            try socket.setXPubVerbose(true)
        }
        try security.secureServer(socket, endpoint: endpoint)
        try watch?.watch(socket)
        try bind(socket, endpoint)
        return socket
    }

    /// Binds, waiting up to 5 s while the port is still held: a listener closed or unbound a moment
    /// ago lets go of its port only when libzmq's I/O thread has closed it.
    func bind(_ socket: Socket, _ endpoint: String) throws {
        let deadline = Reactor.monotonic() + 5
        while true {
            let failure: ZeroMQError
            do {
                try socket.bind(endpoint)
                return
            } catch {
                failure = error
            }
            guard failure.errno == EADDRINUSE, Reactor.monotonic() < deadline else { throw failure }
            usleep(10_000)
        }
    }

    /// Ends every connection accepted on `socket`'s `endpoint` and listens again: each peer
    /// reconnects and handshakes anew (libzmq's `zmq_unbind` ends the sessions its listener launched).
    func cutSessions(_ socket: Socket, _ endpoint: String) throws {
        let bound = (try? socket.lastEndpoint).flatMap { $0.isEmpty ? nil : $0 } ?? endpoint
        try socket.unbind(bound)
        try bind(socket, bound)
    }
}
