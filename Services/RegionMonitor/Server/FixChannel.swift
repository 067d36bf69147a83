import Foundation
import Messages
import Policy
import ServiceRuntime
import ZeroMQ

/// The direct channel fixes arrive on: beacon-ingest PUSHes them to this PULL socket, so
/// coordinates never cross the bus where any subscriber could read them. Best-effort like
/// sightings. Each fix is handed over in its own savepoint: one that cannot be used is rolled
/// back and dead-lettered alone.
///
/// In deployed mode the socket is a CURVE server and each message's sender is known from its
/// connection: only beacon-ingest's fixes are applied (`FixSenders`); any other sender's message
/// is dropped, counted (`forbidden`) and dead-lettered with the reason.
final class FixChannel {
    private let events: EventWriter
    private let deadLetters: DeadLetters
    private let security: SocketSecurity
    private let maxMessageBytes: Int
    private let socket: Socket
    private let consume: (LocationFix) throws -> Void
    /// Messages dropped because their sender may not push fixes, since start.
    private(set) var forbidden = 0

    /// The host's parts a fix channel is built from, taken when the service is made.
    struct Parts {
        let context: Context
        let security: SocketSecurity
        let reactor: Reactor
        let maxMessageBytes: Int
        let events: EventWriter
        let deadLetters: DeadLetters

        init(_ host: ServiceHost) {
            context = host.context
            security = host.security
            reactor = host.reactor
            maxMessageBytes = host.maxMessageBytes
            events = host.events
            deadLetters = host.deadLetters
        }
    }

    /// Binds `endpoint` (a CURVE server in deployed mode; loopback only in plain mode) and drains
    /// it from the host's reactor into `consume`.
    init(parts: Parts, endpoint: String, consume: @escaping (LocationFix) throws -> Void) throws {
        events = parts.events
        deadLetters = parts.deadLetters
        security = parts.security
        maxMessageBytes = parts.maxMessageBytes
        self.consume = consume
        socket = try Socket(parts.context, .pull)
        try socket.setLinger(milliseconds: 0)
        try socket.setReceiveHighWaterMark(100_000)
        try socket.setMaxMessageSize(bytes: Int64(parts.maxMessageBytes))
        try parts.security.secureServer(socket, endpoint: endpoint)
        try socket.bind(endpoint)
        parts.reactor.onReadable(socket) { [unowned self] in try self.drain() }
    }

    /// Takes what has arrived: up to 256 messages per transaction, so a burst costs few commits.
    func drain() throws {
        var more = true
        for _ in 0..<64 where more {
            more = false
            try events.write {
                for _ in 0..<256 {
                    guard let message = try socket.tryReceivePeerMessage() else { return }
                    more = true
                    receive(message.frames, from: security.caller(userId: message.userId, key: message.publicKey), userId: message.userId)
                }
            }
        }
    }

    /// One message, `[topic][envelope]` carrying a `location.fix`, from `caller` (nil: a key
    /// revoked since its connection's handshake).
    func receive(_ frames: [Data], from caller: Caller?, userId: String? = nil) {
        let topic = frames.first.map { String(decoding: $0.prefix(128), as: UTF8.self) } ?? ""
        if let refusal = FixSenders.refusal(caller, userId: userId) {
            forbidden += 1
            // Nothing of it is read: a forger's body is not worth decoding, and it may carry coordinates.
            deadLetters.send(topic: topic, raw: Data(), error: refusal)
            return
        }
        do {
            guard frames.count == 2 else { throw WireError(.messageMalformed, "expected 2 frames [topic][envelope], got \(frames.count)") }
            let envelope = try Wire.decodeEnvelope(frames[1], maxBytes: maxMessageBytes)
            guard case .locationFix(let fix) = envelope.body else {
                throw ServiceError(.unknownType, "the fix channel carries location.fix only, not \(envelope.type.rawValue)")
            }
            try events.write { try consume(fix) }
        } catch {
            // No excerpt: a dead letter is published on the bus, and this channel carries coordinates.
            deadLetters.send(topic: topic, raw: Data(), error: error)
        }
    }
}
