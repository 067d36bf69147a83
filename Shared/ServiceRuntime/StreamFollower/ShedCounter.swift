import Foundation
import Messages

/// Counts the best-effort events (sightings) that never arrived, per source: their numbers go up
/// by one per publisher and stream and start again at 1 when the publisher restarts, so a gap in
/// them is what was shed. Where each stream got to is stored (in the caller's group commit), so a
/// restart counts what was shed meanwhile too.
struct ShedCounter {
    /// Events shed, per source.
    private(set) var shed: [String: UInt64] = [:]
    private var last: [StreamKey: UInt64]
    private var changed: Set<StreamKey> = []

    /// Starts from where each stream got to, as stored.
    init(stored: [StreamKey: UInt64]) { last = stored }

    /// Counts the events missing before this one.
    mutating func count(_ envelope: Envelope) {
        let key = StreamKey(source: envelope.source, stream: envelope.stream)
        if let previous = last[key], envelope.seq > previous + 1 {
            // Saturating: a publisher on the bus chooses its numbers, and a sum must not trap.
            let (sum, overflow) = shed[envelope.source, default: 0].addingReportingOverflow(envelope.seq - previous - 1)
            shed[envelope.source] = overflow ? .max : sum
        }
        last[key] = envelope.seq
        changed.insert(key)
    }

    /// Stores the positions that moved since last time (one row per source and stream, never
    /// one write per sighting).
    mutating func store(in store: FollowerStore) throws {
        guard !changed.isEmpty else { return }
        for key in changed {
            guard let seq = last[key] else { continue }
            try store.storeBestEffortPosition(key, seq)
        }
        changed.removeAll(keepingCapacity: true)
    }
}
