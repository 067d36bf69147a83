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
    private let host: ServiceHost
    private let socket: Socket
    private let consume: (LocationFix) throws -> Void
    /// Messages dropped because their sender may not push fixes, since start.
    private(set) var forbidden = 0

    /// Binds `endpoint` (a CURVE server in deployed mode; loopback only in plain mode) and drains
    /// it from the host's reactor into `consume`.
    init(host: ServiceHost, endpoint: String, consume: @escaping (LocationFix) throws -> Void) throws {
        self.host = host
        self.consume = consume
        socket = try Socket(host.context, .pull)
        try socket.setLinger(milliseconds: 0)
        try socket.setReceiveHighWaterMark(100_000)
        try socket.setMaxMessageSize(bytes: Int64(host.maxMessageBytes))
        try host.security.secureServer(socket, endpoint: endpoint)
        try socket.bind(endpoint)
        host.reactor.onReadable(socket) { [unowned self] in try self.drain() }
    }

    /// Takes what has arrived: up to 256 messages per transaction, so a burst costs few commits.
    func drain() throws {
        var more = true
        for _ in 0..<64 where more {
            more = false
            try host.write {
                for _ in 0..<256 {
                    guard let message = try socket.tryReceivePeerMessage() else { return }
                    more = true
                    receive(message.frames, from: host.security.caller(userId: message.userId, key: message.publicKey), userId: message.userId)
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
            host.deadLetter(topic: topic, raw: Data(), error: refusal)
            return
        }
        do {
            guard frames.count == 2 else { throw WireError(.messageMalformed, "expected 2 frames [topic][envelope], got \(frames.count)") }
            let envelope = try Wire.decodeEnvelope(frames[1], maxBytes: host.maxMessageBytes)
            guard case .locationFix(let fix) = envelope.body else {
                throw ServiceError(.unknownType, "the fix channel carries location.fix only, not \(envelope.type.rawValue)")
            }
            try host.write { try consume(fix) }
        } catch {
            // No excerpt: a dead letter is published on the bus, and this channel carries coordinates.
            host.deadLetter(topic: topic, raw: Data(), error: error)
        }
    }
}
