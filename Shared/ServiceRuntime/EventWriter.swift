import Foundation
import Messages
import SQLite
import ZeroMQ

/// What a Server changes state and announces it with: its database and the publisher of its
/// outbox. A state change and the events it announces commit in one transaction and go out after;
/// best-effort events (sightings, fixes) go straight out, uncounted by the outbox.
public struct EventWriter {
    /// The service's database, which holds its outbox.
    public let db: Database
    /// The PUB socket to the bus, with the outbox it sends from.
    public let publisher: EventPublisher

    /// The writer over `db` and `publisher`, whose outbox is in `db`.
    public init(db: Database, publisher: EventPublisher) {
        self.db = db
        self.publisher = publisher
    }

    /// Runs `body` in one SQLite transaction (state change and outbox events together), then
    /// publishes what it wrote. Inside another `write` it is a savepoint, and the events go out
    /// when the outermost transaction has committed.
    @discardableResult
    public func write<T>(_ body: () throws -> T) throws -> T {
        let result = try db.transaction(body)
        publisher.flush()
        return result
    }

    /// Adds an event to the outbox of the current `write` transaction.
    @discardableResult
    public func emit(_ type: EventType, topic: String, stream: String, _ body: EventBody) throws -> Envelope {
        try publisher.emit(type, topic: topic, stream: stream, body)
    }

    /// `emit`, also returning the event's body as the envelope carries it, for a store that keeps
    /// the event it announced (a record's last event) without encoding it a second time.
    public func emitKeepingBody(_ type: EventType, topic: String, stream: String, _ body: EventBody) throws -> (envelope: Envelope, body: Data) {
        let (envelope, frame, range) = try publisher.outbox.appendEvent(type, topic: topic, stream: stream, body: body)
        // Where the encoder marked the body it is copied out as it lies; only a frame JSONEncoder
        // wrote is scanned for it (the scan was 2,400 instructions of region-monitor's first-seen device).
        if let range { return (envelope, frame.withUnsafeBytes { Data(bytes: $0.baseAddress! + range.lowerBound, count: range.count) }) }
        guard let bytes = EnvelopeFrame.body(of: frame) else { preconditionFailure("Wire.encode wrote an envelope whose first key is not body") }
        return (envelope, bytes)
    }

    /// Publishes a best-effort event (sightings, dead letters) straight to the bus; `compact`: a
    /// sighting batch as its compact frame.
    public func publishBestEffort(_ type: EventType, topic: String, stream: String, _ body: EventBody, compact: Bool = false) throws {
        try publisher.publishBestEffort(type, topic: topic, stream: stream, body, compact: compact)
    }

    /// Sends a best-effort event on a direct channel; false when it would block.
    public func sendBestEffort(on socket: Socket, _ type: EventType, topic: String, stream: String, _ body: EventBody) throws -> Bool {
        try publisher.sendBestEffort(on: socket, type, topic: topic, stream: stream, body)
    }
}
