import Foundation
import Messages
import SQLite

/// The outbox's read side on a connection of its own: what `replay` serves, read off the
/// service's thread. WAL lets this connection read while the service's connection writes; it is
/// `query_only`, so nothing read through it can change the outbox. Owned by one thread (the
/// replay worker's) once opened.
public final class OutboxReader {
    private let db: Database
    private let store: OutboxStore

    /// Opens the outbox database at `path` again, for reading. Fails for an in-memory database
    /// (which no second connection can see) and for a file that does not exist.
    public init(path: String) throws {
        guard !path.isEmpty, path != ":memory:", FileManager.default.fileExists(atPath: path) else {
            throw SQLiteError(code: 14, message: "no database file to read at \(Quoting.quoted(path))", context: "outbox reader")
        }
        db = try Database(path: path, create: false)
        try db.execute("PRAGMA query_only=1")
        // Pages are read once, in order, and the kernel caches the file anyway: a small cache
        // keeps a replay flood from leaving its 2 MiB default (and more) resident afterwards.
        try db.execute("PRAGMA cache_size=-256")
        store = OutboxStore(db: db)
    }

    /// One replay page: up to `limit` events of `stream` from `fromSeq` on, and the stream's last
    /// committed seq. No transaction is needed for the two to agree: the last seq is read after the
    /// page, seqs only grow, and pruning keeps each stream's newest event, so it is never behind
    /// the page (a `BEGIN IMMEDIATE` would take the writer's lock).
    /// Throws `replay.pruned` when `fromSeq` is before the oldest event kept.
    public func page(stream: String, fromSeq: UInt64, limit: Int) throws -> (events: [(seq: UInt64, topic: String, envelope: Data)], lastSeq: UInt64) {
        if let oldest = try store.oldestSeq(of: stream), max(fromSeq, 1) < oldest {
            throw ReplayPruned.error(stream: stream, fromSeq: fromSeq, oldestSeq: oldest)
        }
        let events = try store.events(of: stream, from: max(fromSeq, 1), limit: limit)
        return (events, try store.lastSeq(of: stream))
    }

    /// Gives back the memory the connection's cache holds (when no replay waits).
    public func releaseMemory() {
        db.releaseMemory()
    }

    /// Closes the connection (on the thread that used it).
    public func close() {
        db.close()
    }
}
