import Foundation
import Messages
import SQLite

/// Applies one event with what records it, in one transaction: the service's handler, the event
/// id in the dedupe ledger (one for every consumer: an event seen again under another seq is
/// not applied twice) and, for a followed stream, its cursor. Counts what it did, and keeps the
/// storage failure that stopped the last event until one applies again.
final class EventApplier {
    private let db: Database
    private let store: FollowerStore
    private let positions: FollowerPositions
    private let clock: any WallClock
    /// Topic prefixes the consumer subscribed to; replayed events outside them only move the cursor.
    private let prefixes: [String]
    private let apply: (String, Envelope) throws -> Void
    private let deadLetter: (String, Envelope?, Data, Error) -> Void

    /// How long applied ids are remembered, and the streams whose ids are not recorded at all.
    var ledger = SeenEventLedger()
    private(set) var appliedCount = 0
    private(set) var duplicateCount = 0
    /// Events skipped because their id was applied before (under another seq).
    private(set) var seenAgainCount = 0
    /// The storage failure that stopped the last event, until one applies again.
    private(set) var storageFailure: SQLiteError?

    init(db: Database, store: FollowerStore, positions: FollowerPositions, clock: any WallClock, prefixes: [String],
         apply: @escaping (String, Envelope) throws -> Void, deadLetter: @escaping (String, Envelope?, Data, Error) -> Void) {
        self.db = db
        self.store = store
        self.positions = positions
        self.clock = clock
        self.prefixes = prefixes
        self.apply = apply
        self.deadLetter = deadLetter
    }

    /// An event of a stream not followed with a cursor (a sighting), applied as it comes in its
    /// own savepoint: a handler that fails halfway leaves nothing behind.
    func applyUnordered(topic: String, envelope: Envelope, raw: Data) -> StreamFollower.Outcome {
        do {
            try db.transaction { try apply(topic, envelope) }
            appliedCount += 1
            return .applied
        } catch let error as SQLiteError where error.isStorageFailure {
            storageFailure = error
            return .failed
        } catch {
            deadLetter(topic, envelope, raw, error)
            return .deadLettered
        }
    }

    /// The next event of a followed stream, with its cursor.
    func applyInOrder(topic: String, envelope: Envelope, raw: @autoclosure () -> Data) -> StreamFollower.Outcome {
        let key = StreamKey(source: envelope.source, stream: envelope.stream)
        do {
            let fresh = try db.transaction {
                // Seen before under another seq (a publisher that sent it again): the cursor moves, nothing is applied twice.
                let fresh = try markSeen(envelope)
                if fresh, wanted(topic) { try apply(topic, envelope) }
                try store.storeCursor(key, envelope.seq)
                return fresh
            }
            positions.advance(key, to: envelope.seq, at: envelope.time)
            storageFailure = nil
            if fresh { appliedCount += 1 } else { duplicateCount += 1; seenAgainCount += 1 }
            return fresh ? .applied : .duplicate
        } catch let error as SQLiteError where error.isStorageFailure {
            // Not the event's fault: nothing moves, and it is applied when the storage works again.
            storageFailure = error
            return .failed
        } catch {
            // A poison event must not block the stream forever: dead-letter it and move on. Its id is
            // remembered, so the event coming again is a plain duplicate, not a collision.
            deadLetter(topic, envelope, raw(), error)
            do {
                try db.transaction {
                    _ = try markSeen(envelope)
                    try store.storeCursor(key, envelope.seq)
                }
            } catch let error as SQLiteError where error.isStorageFailure {
                storageFailure = error
                return .failed
            } catch {
                return .failed
            }
            positions.advance(key, to: envelope.seq, at: envelope.time)
            return .deadLettered
        }
    }

    /// A publisher's own event for a seq the cursor has passed (see `SeqCollisions`), applied if
    /// its id is new; the cursor stays where it is. True when it was applied now.
    func applyLate(_ event: ReplayedEvent) -> Bool {
        let envelope = event.envelope
        do {
            let fresh = try db.transaction {
                let fresh = try markSeen(envelope)
                if fresh, wanted(event.topic) { try apply(event.topic, envelope) }
                return fresh
            }
            guard fresh else { return false }
            storageFailure = nil
            appliedCount += 1
            return true
        } catch let error as SQLiteError where error.isStorageFailure {
            storageFailure = error
        } catch {
            // Its id is remembered, so it is not retried forever.
            deadLetter(event.topic, envelope, Wire.encode(envelope), error)
            _ = try? db.transaction { try markSeen(envelope) }
        }
        return false
    }

    /// Hands an event that cannot be used to the dead letters.
    func reject(topic: String, envelope: Envelope, raw: Data, error: Error) {
        deadLetter(topic, envelope, raw, error)
    }

    /// Records an event's id until its stream's retention ends; true (fresh) without a record for
    /// a stream whose ids are not kept.
    private func markSeen(_ envelope: Envelope) throws -> Bool {
        guard let seconds = ledger.retention(of: envelope.stream) else { return true }
        return try store.markSeen(envelope.id, expires: clock.now().adding(seconds: seconds))
    }

    /// Forgets up to `limit` expired ids; returns how many.
    func pruneLedger(limit: Int) throws -> Int {
        let now = clock.now()
        return try db.transaction { try store.deleteExpiredSeenEvents(now: now, limit: limit) }
    }

    /// Whether an event id was applied before; nil when the ledger cannot be read.
    func wasApplied(_ id: String) -> Bool? { try? store.hasSeen(id) }

    /// Counts an event that came at a seq already passed.
    func countDuplicate() { duplicateCount += 1 }

    /// Keeps a storage failure that stopped a page of events.
    func failed(_ error: SQLiteError) { storageFailure = error }

    private func wanted(_ topic: String) -> Bool { prefixes.contains { topic.hasPrefix($0) } }
}
