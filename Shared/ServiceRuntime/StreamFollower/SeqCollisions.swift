import Foundation
import Messages
import SQLite

/// Seq collisions: two events that claim one position of a publisher's stream. In plain mode
/// nothing tells a forger from the publisher, so a forged event with the next seq is applied and
/// the publisher's own event with that seq would then be dropped as a duplicate: a real order
/// would never reach the kitchen. An event at a seq the cursor has passed, whose id was never
/// applied, is therefore checked against the publisher's outbox (the authority, by `replay`):
/// the outbox's event for that seq is applied if its id is new (the cursor never moves back),
/// and an arrival that is not the outbox's event is dead-lettered.
final class SeqCollisions {
    /// Collisions held for checking after a transaction at most; more in one batch are dropped
    /// (a flood of them is a forger's, and each check is a request).
    static let maxPending = 64

    private let db: Database
    private let logger: Logger
    private let sources: ReplaySources
    private let applier: EventApplier
    /// Seq collisions found while a transaction was open, to check against the publisher's outbox after it.
    private var pending: [(topic: String, envelope: Envelope, raw: Data)] = []
    /// Seq collisions that could not be checked yet (no replay endpoint known, the publisher away).
    private var unsettled: [(topic: String, envelope: Envelope, raw: Data)] = []
    /// Events that came at a seq already passed, under an id never applied.
    private(set) var count = 0
    /// The publisher's own events applied late because another event had taken their seq.
    private(set) var recovered = 0

    init(db: Database, logger: Logger, sources: ReplaySources, applier: EventApplier) {
        self.db = db
        self.logger = logger
        self.sources = sources
        self.applier = applier
    }

    /// Whether a check waits for the open transaction to end.
    var hasPending: Bool { !pending.isEmpty }

    /// Whether an event at a passed seq was never applied under its id.
    /// A stream whose ids are not recorded has none: its duplicates are told by cursor alone.
    func collides(_ envelope: Envelope) -> Bool {
        applier.ledger.retention(of: envelope.stream) != nil && applier.wasApplied(envelope.id) == false
    }

    /// Checks a collision against the publisher's outbox now, or after the open transaction.
    func check(topic: String, envelope: Envelope, raw: Data) {
        count += 1
        guard db.inTransaction else {
            settle(topic: topic, envelope: envelope, raw: raw)
            return
        }
        if pending.count < Self.maxPending, !pending.contains(where: { $0.envelope.id == envelope.id }) {
            pending.append((topic, envelope, raw))
        } else {
            logger.warning("seq collision not checked: too many at once", ["source": envelope.source, "stream": envelope.stream, "seq": "\(envelope.seq)"])
        }
    }

    /// Checks the collisions found inside the last transaction.
    func runPending() {
        let events = pending
        pending.removeAll()
        for event in events { settle(topic: event.topic, envelope: event.envelope, raw: event.raw) }
    }

    /// After a heartbeat from `source`: its collisions waiting for a replay endpoint are checked
    /// (after the open transaction, if any).
    func retry(of source: String) {
        guard unsettled.contains(where: { $0.envelope.source == source }) else { return }
        let retry = unsettled.filter { $0.envelope.source == source }
        unsettled.removeAll { $0.envelope.source == source }
        for event in retry {
            if db.inTransaction { pending.append(event) } else { settle(topic: event.topic, envelope: event.envelope, raw: event.raw) }
        }
    }

    /// Asks the publisher for its event at the colliding seq; applies it if new, dead-letters an
    /// arrival that is not it. Never inside a transaction (it is a blocking request).
    private func settle(topic: String, envelope: Envelope, raw: Data) {
        let source = envelope.source, stream = envelope.stream, seq = envelope.seq
        guard let client = sources.client(for: source, stream: stream) else {
            logger.info("seq collision checked once the publisher's heartbeat says where it replays", ["source": source, "stream": stream, "seq": "\(seq)", "event.id": envelope.id])
            return keep(topic, envelope, raw)
        }
        let authentic: ReplayedEvent
        do {
            let reply = try client.call(Op.replay, ReplayRequest(stream: stream, fromSeq: seq, limit: 1), as: ReplayReply.self)
            guard let first = reply.events.first, first.envelope.seq == seq else {
                logger.warning("seq collision not checked: the publisher no longer holds that seq", ["source": source, "stream": stream, "seq": "\(seq)"])
                return
            }
            authentic = first
        } catch let error where ReplayPruned.oldestSeq(in: error) != nil {
            logger.warning("seq collision not checked: the publisher pruned that seq", ["source": source, "stream": stream, "seq": "\(seq)"])
            return
        } catch {
            logger.warning("seq collision not checked yet: replay failed; trying again at the publisher's next heartbeat",
                           ["source": source, "stream": stream, "seq": "\(seq)", "error": "\(error)"])
            return keep(topic, envelope, raw)
        }
        if let error = sources.refusal(of: authentic, source: source, stream: stream) {
            applier.reject(topic: authentic.topic, envelope: authentic.envelope, raw: Wire.encode(authentic.envelope), error: error)
            return
        }
        if authentic.envelope.id != envelope.id {
            applier.reject(topic: topic, envelope: envelope, raw: raw, error: ServiceError(.forbidden, "seq \(seq) of \(Quoting.quoted(source))/\(stream) is event \(Quoting.quoted(authentic.envelope.id)) in the publisher's outbox, not \(Quoting.quoted(envelope.id))"))
        }
        if applier.applyLate(authentic) {
            recovered += 1
            logger.warning("seq collision: another event had taken this seq; the publisher's own event is applied now",
                           ["source": authentic.envelope.source, "stream": authentic.envelope.stream, "seq": "\(authentic.envelope.seq)", "event.id": authentic.envelope.id])
        }
    }

    /// Keeps a collision that could not be checked yet, for the publisher's next heartbeat.
    private func keep(_ topic: String, _ envelope: Envelope, _ raw: Data) {
        guard !unsettled.contains(where: { $0.envelope.id == envelope.id }) else { return }
        if unsettled.count >= Self.maxPending { unsettled.removeFirst() }
        unsettled.append((topic, envelope, raw))
    }
}
