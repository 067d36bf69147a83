import Foundation
import Messages
import ZeroMQ

/// The publishing side of a service: its PUB socket to the bus, the outbox whose committed events
/// it sends (from memory, right after the commit), and best-effort events (sightings, heartbeats,
/// dead letters) that are numbered but never stored.
public final class EventPublisher {
    public let outbox: Outbox
    private let socket: Socket
    private let logger: Logger
    private var numbering: BestEffortNumbering
    /// Whether the PUB socket is connected to the bus.
    public let link: BusLink

    /// Connects a PUB socket to the bus's XSUB endpoint (`name@endpoint` names the bus's key; "bus" by default).
    public init(context: Context, busEndpoint: String, outbox: Outbox, clock: any WallClock, security: SocketSecurity, logger: Logger) throws {
        self.outbox = outbox
        self.logger = logger
        numbering = BestEffortNumbering(source: outbox.source, clock: clock)
        socket = try Socket(context, .pub)
        try socket.setSendHighWaterMark(100_000)
        try socket.setLinger(milliseconds: 500)
        try socket.setReconnectInterval(milliseconds: 100, maxMilliseconds: 2_000)
        link = try BusLink(watching: socket, context: context)
        let (server, endpoint) = PeerEndpoint.split(busEndpoint, defaultName: "bus")
        try security.secureClient(socket, server: server)
        try socket.connect(endpoint)
    }

    /// Retries sends and stores how far they got every 250 ms; `pruner` deletes events past the
    /// replay window (`--replay-window-seconds`).
    public func attach(to reactor: Reactor, pruner: Pruner, replayWindowSeconds: Double) {
        link.attach(to: reactor)
        reactor.every(0.25, name: "outbox.flush") { [unowned self] in
            self.flush()
            try self.outbox.persistPublished()
        }
        pruner.add("outbox") { [unowned self] limit in try self.outbox.pruneBatch(windowSeconds: replayWindowSeconds, limit: limit) }
    }

    /// Adds an event to the outbox of the current transaction; it is sent once that commits.
    @discardableResult
    public func emit(_ type: EventType, topic: String, stream: String, _ body: EventBody) throws -> Envelope {
        try outbox.append(type, topic: topic, stream: stream, body: body)
    }

    /// Sends what the outbox has committed and not sent. A failure is logged; the flush timer retries.
    public func flush() {
        do {
            try outbox.flush { topic, envelope in
                try socket.send(topic, more: true, dontWait: true)
                try socket.send(envelope, dontWait: true)
            }
        } catch {
            logger.warning("outbox flush stopped", ["error": "\(error)"])
        }
    }

    /// Publishes a best-effort event straight to the bus: counted per stream, not stored, not
    /// replayable. `compact`: a sighting batch goes as its compact frame (`CompactSightingBatch`)
    /// when the frame carries it, else as JSON.
    public func publishBestEffort(_ type: EventType, topic: String, stream: String, _ body: EventBody, compact: Bool = false) throws {
        let envelope = numbering.next(type, stream: stream, body)
        let frame = compact ? CompactSightingBatch.encode(envelope) ?? Wire.encode(envelope) : Wire.encode(envelope)
        try socket.send(topic, more: true, dontWait: true)
        try socket.send(frame, dontWait: true)
        numbering.commit(stream: stream, seq: envelope.seq)
    }

    /// Sends a best-effort event on a socket of the caller's (a direct channel, not the bus), with
    /// the same envelope and per-stream numbering. Returns false, sending nothing, when the socket
    /// would block (its peer is gone or too slow): the caller counts it.
    public func sendBestEffort(on channel: Socket, _ type: EventType, topic: String, stream: String, _ body: EventBody) throws -> Bool {
        let envelope = numbering.next(type, stream: stream, body)
        do {
            try channel.send(multipart: [Data(topic.utf8), Wire.encode(envelope)], dontWait: true)
        } catch {
            let failure: ZeroMQError = error
            if failure.isAgain { return false }
            throw failure
        }
        numbering.commit(stream: stream, seq: envelope.seq)
        return true
    }

    /// Closes the socket; its linger bounds how long unsent messages may hold the process.
    public func close() {
        link.close()
        socket.close()
    }
}

/// Ids and sequence numbers for best-effort envelopes. Numbered, not given random UUIDs (a random
/// UUID per sighting costs a getrandom call and formatting): a per-process random prefix and the
/// per-stream sequence keep ids unique across restarts. The bus numbers its dead letters with it.
public struct BestEffortNumbering {
    public let source: String
    let clock: any WallClock
    private var last: [String: UInt64] = [:]
    private let prefix = String(UInt64.random(in: 0...UInt64.max), radix: 36) + "-"

    public init(source: String, clock: any WallClock) {
        self.source = source
        self.clock = clock
    }

    /// The next envelope of `stream`; its number is taken only by `commit` (a send that would block takes none).
    public func next(_ type: EventType, stream: String, _ body: EventBody) -> Envelope {
        let seq = (last[stream] ?? 0) + 1
        return Envelope(type: type, id: prefix + stream + "-" + String(seq), source: source, stream: stream, seq: seq, time: clock.now(), body: body)
    }

    public mutating func commit(stream: String, seq: UInt64) {
        last[stream] = seq
    }
}
