import Foundation
import Messages
import SQLite

/// Deletes what has outlived its retention, on the reactor, in small batches: each job deletes at
/// most `batchSize` rows per call, in a transaction of its own, and one turn stops once
/// `budgetSeconds` are spent, so no request waits behind a prune for more than a few milliseconds.
/// A turn that left work (a backlog after a restart, a table that grew faster than one turn
/// deletes) is followed by another 20 ms later, until every job is done; then the next turn comes
/// one `intervalSeconds` later.
///
/// Freed pages are not returned to the file system: SQLite keeps them on its freelist and reuses
/// them for the next rows, so a table pruned as fast as it grows keeps its file size (the steady
/// state). `incremental_vacuum` would shrink the file, but only in a database created with
/// `auto_vacuum=INCREMENTAL` (every existing file would need a full `VACUUM` first), and the
/// pages it hands back would be asked for again within one retention period.
public final class Pruner {
    /// One kind of expired row: deletes at most `limit` of them and returns how many it deleted.
    public typealias Batch = (_ limit: Int) throws -> Int

    public let batchSize: Int
    public let budgetSeconds: Double
    public let intervalSeconds: Double
    private var jobs: [(name: String, batch: Batch)] = []
    /// Rows deleted since start, per job (health: `pruned.<job>`).
    public private(set) var pruned: [String: Int] = [:]
    /// Whether the last turn ran out of budget with rows still to delete.
    public private(set) var behind = false
    private var nextTurn: Double
    private let logger: Logger

    public init(intervalSeconds: Double, batchSize: Int = 500, budgetSeconds: Double = 0.005, logger: Logger) {
        self.intervalSeconds = intervalSeconds
        self.batchSize = batchSize
        self.budgetSeconds = budgetSeconds
        self.logger = logger
        nextTurn = Reactor.monotonic() + 1
    }

    /// Adds a kind of expired row, pruned from the next turn on.
    public func add(_ name: String, _ batch: @escaping Batch) {
        jobs.append((name, batch))
        pruned[name] = pruned[name] ?? 0
    }

    /// Checks every tenth of a second whether a turn is due; while behind, a turn every 20 ms (at
    /// most a quarter of the thread, in slices of `budgetSeconds`), so a table that grows by
    /// thousands of rows a second (region-monitor's outbox on a busy campus) is pruned as fast.
    public func attach(to reactor: Reactor) {
        reactor.every(0.1, name: "retention.prune") { [unowned self] in
            let now = Reactor.monotonic()
            guard !behind, now >= nextTurn else { return }
            _ = turn(until: now + budgetSeconds, now: Reactor.monotonic)
            nextTurn = now + intervalSeconds
        }
        reactor.every(0.02, name: "retention.prune.more") { [unowned self] in
            guard behind else { return }
            _ = turn(until: Reactor.monotonic() + budgetSeconds, now: Reactor.monotonic)
        }
    }

    /// One turn: a batch of each job in turn, again while any job filled its batch, until
    /// `now()` passes `deadline`. Returns whether rows were left to delete. A failing job is
    /// logged and skipped for this turn (the next turn tries it again).
    @discardableResult
    public func turn(until deadline: Double, now: () -> Double) -> Bool {
        var active = Array(jobs.indices)
        while !active.isEmpty {
            var stillFull: [Int] = []
            for index in active {
                if now() > deadline {
                    behind = true
                    return true
                }
                let job = jobs[index]
                do {
                    let deleted = try job.batch(batchSize)
                    pruned[job.name, default: 0] += deleted
                    if deleted >= batchSize { stillFull.append(index) }
                } catch {
                    logger.error("retention prune failed", ["job": job.name, "error": "\(error)"])
                }
            }
            active = stillFull
        }
        behind = false
        return false
    }

    /// Health keys: rows pruned per job, and whether pruning is behind.
    public var healthDetails: [String: String] {
        var details: [String: String] = [:]
        for (name, count) in pruned { details["pruned.\(name)"] = "\(count)" }
        if behind { details["pruned.behind"] = "true" }
        return details
    }
}
