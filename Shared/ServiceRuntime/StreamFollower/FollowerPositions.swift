import Foundation
import Messages
import SQLite

/// Where the follower is: each followed stream's cursor (the last seq applied) and each
/// publisher's epoch, in memory beside the tables that store them.
///
/// Memory moves only with the commit that stores it: a change made inside an open transaction
/// is undone if that transaction level rolls back.
final class FollowerPositions {
    private let db: Database
    private let store: FollowerStore
    private let logger: Logger
    private var cursors: [StreamKey: UInt64]
    private var epochs: [String: String]
    /// The publisher's time of the event at each cursor, for the events applied since this process
    /// started (a heartbeat heard after a restart was sent after it, so it cannot be stale).
    private var appliedAt: [StreamKey: Timestamp] = [:]
    /// How to undo what open transaction levels changed in memory, and where each level began.
    private var undo: [() -> Void] = []
    private var undoMarks: [Int] = []

    /// Loads what `store` holds and follows `db`'s transactions from now on.
    init(db: Database, store: FollowerStore, logger: Logger) throws {
        self.db = db
        self.store = store
        self.logger = logger
        cursors = try store.cursors()
        epochs = try store.epochs()
        db.addTransactionObserver(self)
    }

    /// The last applied seq of a stream (0 before any).
    func cursor(_ key: StreamKey) -> UInt64 { cursors[key] ?? 0 }

    /// Every cursor of `streams`, "source/stream" → seq (positions shared by two followers
    /// hold both's cursors; each reports its own).
    func summary(of streams: Set<String>) -> [String: UInt64] {
        Dictionary(uniqueKeysWithValues: cursors.filter { streams.contains($0.key.stream) }.map { ($0.key.name, $0.value) })
    }

    /// Moves a cursor in memory once its stored row was written (undone if the transaction that
    /// stored it rolls back).
    /// `time` is the applied event's own (its publisher's clock), kept in memory for
    /// `isStale`; without one the stream's heartbeats are judged as before.
    func advance(_ key: StreamKey, to seq: UInt64?, at time: Timestamp? = nil) {
        if db.inTransaction {
            let old = cursors[key], oldTime = appliedAt[key]
            undo.append { [unowned self] in
                self.cursors[key] = old
                self.appliedAt[key] = oldTime
            }
        }
        cursors[key] = seq
        appliedAt[key] = seq == nil ? nil : time
    }

    /// Follows a publisher's heartbeat: one that started over (a new epoch, or a last seq below
    /// what we already applied, which only a publisher that lost its history can announce; this
    /// catches it even when we never heard the old epoch) has its cursors reset; a first epoch
    /// is remembered. A stale heartbeat (see `isStale`) below our cursor resets nothing.
    func follow(_ heartbeat: Heartbeat, of source: String, durableStreams: Set<String>) {
        let known = epochs[source]
        let newEpoch = !heartbeat.epoch.isEmpty && known != nil && known != heartbeat.epoch
        let wentBack = durableStreams.contains { stream in
            let key = StreamKey(source: source, stream: stream)
            return cursor(key) > (heartbeat.streams[stream] ?? 0) && !isStale(heartbeat, for: key)
        }
        if newEpoch || wentBack || (known == nil && !heartbeat.epoch.isEmpty) {
            adopt(epoch: heartbeat.epoch, of: source, reset: newEpoch || wentBack)
        }
    }

    /// Whether `heartbeat` was read before the event at our cursor of `key` was written: the
    /// publisher stamps `at` before reading its last seqs, and every later event no earlier, so an
    /// event stamped at or after `at` is one the heartbeat could not count. That happens when a
    /// catch-up replays past a heartbeat still queued on the bus; it is no sign of going back. A
    /// publisher that really went back (a restored database, same epoch) announces a time after
    /// everything it wrote before, so it is caught unless its clock went back too.
    private func isStale(_ heartbeat: Heartbeat, for key: StreamKey) -> Bool {
        guard let at = heartbeat.at, let applied = appliedAt[key] else { return false }
        return applied >= at
    }

    /// A publisher that started over from an empty database counts its seq from 1 again, so our
    /// cursors for it mean nothing now: reset them, and the catch-up that follows replays its new
    /// history. Otherwise just remember its epoch.
    private func adopt(epoch: String, of source: String, reset: Bool) {
        do {
            try db.transaction {
                if reset { try store.deleteCursors(of: source) }
                if !epoch.isEmpty { try store.storeEpoch(epoch, of: source) }
            }
        } catch {
            logger.error("could not record a publisher's restart", ["source": source, "error": "\(error)"])
            return
        }
        if reset {
            logger.warning("publisher started over; cursors reset", ["source": source, "epoch": epoch])
            for key in cursors.keys where key.source == source { advance(key, to: nil) }
        }
        if !epoch.isEmpty {
            if db.inTransaction {
                let old = epochs[source]
                undo.append { [unowned self] in self.epochs[source] = old }
            }
            epochs[source] = epoch
        }
    }
}

extension FollowerPositions: TransactionObserver {
    func transactionBegan(depth: Int) {
        undoMarks.append(undo.count)
    }

    func transactionCommitted(depth: Int) {
        undoMarks.removeLast()
        if depth == 1 { undo.removeAll(keepingCapacity: true) }
    }

    func transactionRolledBack(depth: Int) {
        let mark = undoMarks.removeLast()
        while undo.count > mark { undo.removeLast()() }
    }
}
