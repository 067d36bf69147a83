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

    /// Every cursor, "source/stream" → seq.
    var summary: [String: UInt64] {
        Dictionary(uniqueKeysWithValues: cursors.map { ($0.key.name, $0.value) })
    }

    /// Moves a cursor in memory once its stored row was written (undone if the transaction that
    /// stored it rolls back).
    func advance(_ key: StreamKey, to seq: UInt64?) {
        if db.inTransaction {
            let old = cursors[key]
            undo.append { [unowned self] in self.cursors[key] = old }
        }
        cursors[key] = seq
    }

    /// Follows a publisher's heartbeat: one that started over (a new epoch, or a last seq below
    /// what we already applied, which only a publisher that lost its history can announce; this
    /// catches it even when we never heard the old epoch) has its cursors reset; a first epoch
    /// is remembered.
    func follow(_ heartbeat: Heartbeat, of source: String, durableStreams: Set<String>) {
        let known = epochs[source]
        let newEpoch = !heartbeat.epoch.isEmpty && known != nil && known != heartbeat.epoch
        let wentBack = durableStreams.contains { cursor(StreamKey(source: source, stream: $0)) > (heartbeat.streams[$0] ?? 0) }
        if newEpoch || wentBack || (known == nil && !heartbeat.epoch.isEmpty) {
            adopt(epoch: heartbeat.epoch, of: source, reset: newEpoch || wentBack)
        }
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
