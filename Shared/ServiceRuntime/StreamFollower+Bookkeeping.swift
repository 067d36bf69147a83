import Foundation
import Messages
import SQLite

/// What the follower counts beside applying: best-effort events shed (from gaps in their
/// numbering, kept across restarts), streams behind their publisher, and in-memory state that
/// follows each transaction level so it moves only with the commit that stores it.
extension StreamFollower {
    /// The streams ("source/stream") that have been behind their publisher's heartbeat for longer
    /// than `seconds`: a catch-up that keeps failing.
    public func streamsBehind(longerThan seconds: Double) -> [String] {
        let now = Reactor.monotonic()
        return behindSince.filter { now - $0.value > seconds }
            .map { $0.key.replacingOccurrences(of: "\u{1}", with: "/") }.sorted()
    }

    /// Counts the best-effort events that did not arrive: their numbers go up by one per
    /// publisher and stream, and start again at 1 when the publisher restarts.
    func countShed(_ envelope: Envelope) {
        let k = key(envelope.source, envelope.stream)
        if let last = bestEffortLast[k], envelope.seq > last + 1 {
            // Saturating: a publisher on the bus chooses its numbers, and a sum must not trap.
            let (sum, overflow) = shed[envelope.source, default: 0].addingReportingOverflow(envelope.seq - last - 1)
            shed[envelope.source] = overflow ? .max : sum
        }
        bestEffortLast[k] = envelope.seq
        bestEffortChanged.insert(k)
    }

    /// Stores where each best-effort stream got to (one row per source and stream, in the caller's
    /// group commit, never one write per sighting), so a restart counts what was shed meanwhile.
    public func storeBestEffortPositions() throws {
        guard !bestEffortChanged.isEmpty else { return }
        for k in bestEffortChanged {
            guard let seq = bestEffortLast[k] else { continue }
            let parts = k.split(separator: "\u{1}", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            try db.run("INSERT INTO consumer_best_effort (source, stream, seq) VALUES (?, ?, ?) ON CONFLICT(source, stream) DO UPDATE SET seq = excluded.seq",
                       parts[0], parts[1], Int64(clamping: seq))
        }
        bestEffortChanged.removeAll(keepingCapacity: true)
    }
}

extension StreamFollower: TransactionObserver {
    public func transactionBegan(depth: Int) {
        undoMarks.append(undo.count)
    }

    public func transactionCommitted(depth: Int) {
        undoMarks.removeLast()
        if depth == 1 { undo.removeAll(keepingCapacity: true) }
    }

    public func transactionRolledBack(depth: Int) {
        let mark = undoMarks.removeLast()
        while undo.count > mark { undo.removeLast()() }
    }
}
