import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// The direct channel fixes arrive on: beacon-ingest PUSHes them to this PULL socket, so
/// coordinates never cross the bus where any subscriber could read them. Best-effort like
/// sightings. Each fix is handed over in its own savepoint: one that cannot be used is rolled
/// back and dead-lettered alone.
final class FixChannel {
    private let host: ServiceHost
    private let socket: Socket
    private let consume: (LocationFix) throws -> Void

    /// Binds `endpoint` and drains it from the host's reactor into `consume`.
    init(host: ServiceHost, endpoint: String, consume: @escaping (LocationFix) throws -> Void) throws {
        self.host = host
        self.consume = consume
        socket = try Socket(host.context, .pull)
        try socket.setLinger(milliseconds: 0)
        try socket.setReceiveHighWaterMark(100_000)
        try socket.setMaxMessageSize(bytes: Int64(host.maxMessageBytes))
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
                    guard let frames = try socket.tryReceiveMultipart() else { return }
                    more = true
                    receive(frames)
                }
            }
        }
    }

    /// One message, `[topic][envelope]` carrying a `location.fix`.
    func receive(_ frames: [Data]) {
        let topic = frames.first.map { String(decoding: $0.prefix(128), as: UTF8.self) } ?? ""
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
