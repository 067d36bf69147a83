import Foundation
import Messages
import SQLite

/// Catching up (the Clone pattern's second half): a heartbeat ahead of the cursor or a gap asks
/// the publisher's `replay`, page by page. A catch-up is a blocking request, so it never runs
/// inside an open transaction: one asked for then waits for the commit, together with the event
/// that revealed the gap.
final class CatchUp {
    /// Events asked for per replay request.
    static let pageSize = 500

    private let db: Database
    private let logger: Logger
    private let positions: FollowerPositions
    private let sources: ReplaySources
    private let applier: EventApplier
    private let store: FollowerStore
    /// Whether the process is stopping: checked between replay pages.
    var shouldStop: () -> Bool = { false }
    /// Events applied by replay.
    private(set) var replayedCount = 0
    /// Events skipped because their publisher had pruned them (`replay.pruned`).
    private(set) var lostToPruning: UInt64 = 0
    /// Catch-ups asked for while a transaction was open, and the events that revealed them.
    private var pending: [(key: StreamKey, through: UInt64)] = []
    private var held: [(topic: String, envelope: Envelope, raw: Data)] = []

    init(db: Database, store: FollowerStore, logger: Logger, positions: FollowerPositions, sources: ReplaySources, applier: EventApplier) {
        self.db = db
        self.store = store
        self.logger = logger
        self.positions = positions
        self.sources = sources
        self.applier = applier
    }

    /// Whether a catch-up waits for the open transaction to end.
    var hasPending: Bool { !pending.isEmpty }

    /// Catches `key` up through `through` now, or after the open transaction.
    func ask(_ key: StreamKey, through: UInt64) {
        if db.inTransaction { schedule(key, through: through) } else { run(key, through: through) }
    }

    /// An event past a gap found inside an open transaction: the gap is filled after the commit,
    /// then the event is applied if it is next.
    func hold(topic: String, envelope: Envelope, raw: Data) {
        schedule(StreamKey(source: envelope.source, stream: envelope.stream), through: envelope.seq - 1)
        held.append((topic, envelope, raw))
    }

    private func schedule(_ key: StreamKey, through: UInt64) {
        if let index = pending.firstIndex(where: { $0.key == key }) {
            pending[index].through = max(pending[index].through, through)
        } else {
            pending.append((key, through))
        }
    }

    /// Runs the catch-ups asked for inside the last transaction, then applies the held events that
    /// are next in their streams. One that still does not fit is dropped: the gap stays, and the
    /// publisher's next heartbeat asks for it again.
    func runPending() {
        let requests = pending, events = held
        pending.removeAll()
        held.removeAll()
        for request in requests { run(request.key, through: request.through) }
        for event in events {
            let current = positions.cursor(StreamKey(source: event.envelope.source, stream: event.envelope.stream))
            if event.envelope.seq == current + 1 {
                _ = applier.applyInOrder(topic: event.topic, envelope: event.envelope, raw: event.raw)
            }
        }
    }

    /// Replays the stream from its publisher until our cursor reaches `target` or the publisher
    /// has nothing more. Failures are logged; the next heartbeat tries again. Stops between pages
    /// when the process is stopping: the cursor keeps what was applied.
    func run(_ key: StreamKey, through target: UInt64) {
        let source = key.source, stream = key.stream
        guard let endpoint = sources.endpoint(of: source), let client = sources.client(for: source, stream: stream) else { return }
        while positions.cursor(key) < target {
            if shouldStop() { return }
            let from = positions.cursor(key) + 1
            let reply: ReplayReply
            do {
                reply = try client.call(Op.replay, ReplayRequest(stream: stream, fromSeq: from, limit: Self.pageSize), as: ReplayReply.self)
            } catch let error where ReplayPruned.oldestSeq(in: error) != nil {
                guard skipPruned(key, to: ReplayPruned.oldestSeq(in: error) ?? 0, through: target) else { return }
                continue
            } catch {
                logger.warning("replay failed", ["source": source, "stream": stream, "endpoint": endpoint, "error": "\(error)"])
                return
            }
            if reply.events.isEmpty { return }
            guard let applied = apply(page: reply.events, of: key) else { return }
            // Nothing applied: stop; the next heartbeat tries again.
            if positions.cursor(key) < from { return }
            replayedCount += applied
            logger.info("caught up by replay", ["source": source, "stream": stream, "events": "\(applied)", "cursor": "\(positions.cursor(key))"])
        }
    }

    /// The publisher pruned the events from our cursor to `oldest` - 1 (we were away longer than
    /// its replay window): they are lost. The cursor moves to just before the oldest one kept (never
    /// past `target`, never back), the loss is counted and logged, and the catch-up goes on from
    /// there. False when the answer cannot move the cursor (the catch-up stops; the next heartbeat
    /// asks again).
    private func skipPruned(_ key: StreamKey, to oldest: UInt64, through target: UInt64) -> Bool {
        let current = positions.cursor(key)
        let skipTo = min(oldest &- 1, target)
        guard oldest > 0, skipTo > current else { return false }
        do {
            try db.transaction { try store.storeCursor(key, skipTo) }
        } catch {
            logger.error("could not skip a pruned range", ["source": key.source, "stream": key.stream, "error": "\(error)"])
            return false
        }
        positions.advance(key, to: skipTo)
        lostToPruning += skipTo - current
        logger.warning("events lost: the publisher pruned them before this consumer read them; going on from the oldest it keeps",
                       ["source": key.source, "stream": key.stream, "from": "\(current + 1)", "through": "\(skipTo)", "lost": "\(skipTo - current)"])
        return true
    }

    /// A page in one transaction (a savepoint per event): one commit, not one per event. It
    /// applies strictly in order and stops at the first event the storage could not take; a
    /// failed commit undoes the page, cursors included. Returns how many were applied, or nil
    /// when the page was undone.
    private func apply(page events: [ReplayedEvent], of key: StreamKey) -> Int? {
        var applied = 0
        do {
            try db.transaction {
                for event in events where event.envelope.seq > positions.cursor(key) {
                    guard event.envelope.seq == positions.cursor(key) + 1 else { break }
                    // The publisher's own record, and still only what its stream may carry.
                    if let error = sources.refusal(of: event, source: key.source, stream: key.stream) {
                        applier.reject(topic: event.topic, envelope: event.envelope, raw: Wire.encode(event.envelope), error: error)
                        break
                    }
                    if applier.applyInOrder(topic: event.topic, envelope: event.envelope, raw: Wire.encode(event.envelope)) == .failed {
                        throw applier.storageFailure ?? SQLiteError(code: 10, message: "storage failed", context: "replay")
                    }
                    applied += 1
                }
            }
        } catch let error as SQLiteError where error.isStorageFailure {
            applier.failed(error)
            return nil
        } catch {
            return nil
        }
        return applied
    }
}
