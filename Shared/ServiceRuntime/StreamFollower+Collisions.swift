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
extension StreamFollower {
    /// Collisions held for checking after a transaction at most; more in one batch are dropped
    /// (a flood of them is a forger's, and each check is a request).
    static let maxPendingCollisions = 64

    /// Whether an event at a passed seq was never applied under its id.
    func collides(_ envelope: Envelope) -> Bool {
        let known = try? db.query("SELECT 1 AS one FROM consumer_seen_events WHERE event_id = ?", envelope.id)
        return known?.isEmpty == true
    }

    /// Checks a collision against the publisher's outbox now, or after the open transaction.
    func collision(topic: String, envelope: Envelope, raw: Data) -> Outcome {
        collisionCount += 1
        duplicateCount += 1
        guard db.inTransaction else {
            settleCollision(topic: topic, envelope: envelope, raw: raw)
            return .duplicate
        }
        if pendingCollisions.count < Self.maxPendingCollisions, !pendingCollisions.contains(where: { $0.envelope.id == envelope.id }) {
            pendingCollisions.append((topic, envelope, raw))
        } else {
            logger.warning("seq collision not checked: too many at once", ["source": envelope.source, "stream": envelope.stream, "seq": "\(envelope.seq)"])
        }
        return .duplicate
    }

    /// Asks the publisher for its event at the colliding seq; applies it if new, dead-letters an
    /// arrival that is not it. Never inside a transaction (it is a blocking request).
    func settleCollision(topic: String, envelope: Envelope, raw: Data) {
        let source = envelope.source, stream = envelope.stream, seq = envelope.seq
        guard let client = replayClient(source, stream: stream) else {
            logger.info("seq collision checked once the publisher's heartbeat says where it replays", ["source": source, "stream": stream, "seq": "\(seq)", "event.id": envelope.id])
            return unsettled(topic, envelope, raw)
        }
        let authentic: ReplayedEvent
        do {
            let reply = try client.call(Op.replay, ReplayRequest(stream: stream, fromSeq: seq, limit: 1), as: ReplayReply.self)
            guard let first = reply.events.first, first.envelope.seq == seq else {
                logger.warning("seq collision not checked: the publisher no longer holds that seq", ["source": source, "stream": stream, "seq": "\(seq)"])
                return
            }
            authentic = first
        } catch {
            logger.warning("seq collision not checked yet: replay failed; trying again at the publisher's next heartbeat",
                           ["source": source, "stream": stream, "seq": "\(seq)", "error": "\(error)"])
            return unsettled(topic, envelope, raw)
        }
        if let error = origins?.fromReplay(authentic, source: source, stream: stream) {
            deadLetter(authentic.topic, authentic.envelope, Wire.encode(authentic.envelope), error)
            return
        }
        if authentic.envelope.id != envelope.id {
            deadLetter(topic, envelope, raw, ServiceError(.forbidden, "seq \(seq) of \(Quoting.quoted(source))/\(stream) is event \(Quoting.quoted(authentic.envelope.id)) in the publisher's outbox, not \(Quoting.quoted(envelope.id))"))
        }
        applyLate(authentic)
    }

    /// Keeps a collision that could not be checked yet, for the publisher's next heartbeat.
    private func unsettled(_ topic: String, _ envelope: Envelope, _ raw: Data) {
        guard !unsettledCollisions.contains(where: { $0.envelope.id == envelope.id }) else { return }
        if unsettledCollisions.count >= Self.maxPendingCollisions { unsettledCollisions.removeFirst() }
        unsettledCollisions.append((topic, envelope, raw))
    }

    /// After a heartbeat from `source`: its collisions waiting for a replay endpoint are checked
    /// (after the open transaction, if any).
    func retryCollisions(of source: String) {
        guard unsettledCollisions.contains(where: { $0.envelope.source == source }) else { return }
        let retry = unsettledCollisions.filter { $0.envelope.source == source }
        unsettledCollisions.removeAll { $0.envelope.source == source }
        for event in retry {
            if db.inTransaction { pendingCollisions.append(event) } else { settleCollision(topic: event.topic, envelope: event.envelope, raw: event.raw) }
        }
    }

    /// Applies the publisher's own event for a seq the cursor has passed, if its id is new; the
    /// cursor stays where it is.
    private func applyLate(_ event: ReplayedEvent) {
        let envelope = event.envelope
        do {
            let fresh = try db.transaction {
                let fresh = try markSeen(envelope.id)
                if fresh, wanted(event.topic) { try apply(event.topic, envelope) }
                return fresh
            }
            guard fresh else { return }
            storageFailure = nil
            appliedCount += 1
            collisionsRecovered += 1
            logger.warning("seq collision: another event had taken this seq; the publisher's own event is applied now",
                           ["source": envelope.source, "stream": envelope.stream, "seq": "\(envelope.seq)", "event.id": envelope.id])
        } catch let error as SQLiteError where error.isStorageFailure {
            storageFailure = error
        } catch {
            // Its id is remembered, so it is not retried forever.
            deadLetter(event.topic, envelope, Wire.encode(envelope), error)
            _ = try? db.transaction { try markSeen(envelope.id) }
        }
    }
}
