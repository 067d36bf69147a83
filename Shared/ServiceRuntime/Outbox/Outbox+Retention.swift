import Foundation
import Messages
import SQLite

/// The outbox's retention: published events are deleted once they are older than the replay
/// window and no consumer that is replaying needs them; each stream's newest event is kept, so
/// its numbering continues after a restart and `replay` can tell a pruned range from an empty one.
extension Outbox {
    /// A consumer (its principal, or "plain" in plain mode) asked `replay` of `stream` from `fromSeq`.
    public func noteReplay(stream: String, fromSeq: UInt64, consumer: String) {
        replaying.note(stream: stream, fromSeq: fromSeq, consumer: consumer, now: clock.now())
    }

    /// Deletes up to `limit` expired events of each stream (a transaction per stream and bound) and
    /// returns how many it deleted. Expired: published, not its stream's newest, and either written
    /// more than `windowSeconds` ago and below the lowest seq a replaying consumer needs, or written
    /// more than two windows ago whatever a consumer needs: a consumer slower than its publisher
    /// (measured: order-service catching up on region events on a starved machine held 1.4 million
    /// of them) holds the disk for one more window at most, then is answered `replay.pruned`.
    public func pruneBatch(windowSeconds: Double, limit: Int) throws -> Int {
        guard !db.inTransaction else { return 0 }
        let now = clock.now()
        var deleted = 0
        for (stream, sent) in published.sorted(by: { $0.key < $1.key }) {
            // Below `upper` only: the newest published event stays, and what a consumer replays from.
            let floor = replaying.floor(of: stream, now: now)
            var bounds = [(upper: min(sent, floor ?? sent), before: now.adding(seconds: -windowSeconds))]
            if let floor, floor < sent { bounds.append((sent, now.adding(seconds: -2 * windowSeconds))) }
            for bound in bounds {
                guard let oldest = try oldestSeq(stream), oldest < bound.upper else { continue }
                let upper = min(bound.upper, oldest + UInt64(max(limit, 1)))
                let count = try db.transaction { try store.deleteEvents(of: stream, below: upper, writtenBefore: bound.before) }
                if count > 0 { oldestKept[stream] = try store.oldestSeq(of: stream) }
                deleted += count
            }
        }
        return deleted
    }

    /// The oldest event of `stream` still kept (nil when it has none).
    public func oldestSeq(_ stream: String) throws -> UInt64? {
        if let known = oldestKept[stream] { return known }
        let oldest = try store.oldestSeq(of: stream)
        oldestKept[stream] = oldest
        return oldest
    }

    /// Consumers remembered as replaying (health).
    public var replayingConsumers: Int { replaying.count }
}
