import Foundation
import Messages
import SQLite

/// Makes one backup copy off the service's thread: a connection of its own to the service's
/// database, SQLite's online backup API in steps of 256 pages (1 MiB) inside one read snapshot,
/// then the manifest read from the copy itself and its SHA-256. The service's own connection
/// never waits for it: in WAL mode the writer does not wait for readers (only a TRUNCATE
/// checkpoint would, which `Backups.holdsSnapshot` tells the host to skip meanwhile).
final class BackupCopier: @unchecked Sendable {
    /// Progress and outcome, read by the reactor thread while this one writes them.
    struct Progress: Sendable {
        var copied = 0
        var total = 0
        var manifest: BackupManifest?
        var failure: String?
        var done = false
    }

    let id: String
    /// The finished copy (written as `<path>.part`, renamed when whole).
    let path: String
    private let lock = NSLock()
    private var progress = Progress()
    private var stopping = false

    init(id: String, folder: String) {
        self.id = id
        path = (folder as NSString).appendingPathComponent("\(id).sqlite")
    }

    /// What the copy has done so far.
    var current: Progress { lock.withLock { progress } }

    /// Asks the copy to stop at its next step (the partial file is removed).
    func stop() { lock.withLock { stopping = true } }

    /// Starts the copy of `database` on a thread of its own.
    func start(database: String, service: String, instance: String, clock: any WallClock, logger: Logger) {
        let thread = Thread { [self] in
            let started = Reactor.monotonic()
            do {
                let manifest = try copy(database: database, service: service, instance: instance, clock: clock)
                lock.withLock {
                    progress.manifest = manifest
                    progress.done = true
                }
                logger.info("backup ready", ["backup.id": id, "backup.bytes": "\(manifest.size)",
                                             "backup.ms": "\(Int((Reactor.monotonic() - started) * 1000))"])
            } catch {
                try? FileManager.default.removeItem(atPath: path + ".part")
                lock.withLock {
                    progress.failure = "\(error)"
                    progress.done = true
                }
                logger.warning("backup failed", ["backup.id": id, "error": "\(error)"])
            }
        }
        thread.name = "backup"
        thread.start()
    }

    private func copy(database: String, service: String, instance: String, clock: any WallClock) throws -> BackupManifest {
        let part = path + ".part"
        let takenAt = clock.now()
        let source = try Database(path: database, create: false)
        do {
            try source.execute("PRAGMA query_only=1")
            try source.backup(to: part) { copied, total in
                lock.withLock {
                    progress.copied = copied
                    progress.total = total
                    return !stopping
                }
            }
            source.close()
        } catch {
            source.close()
            throw error
        }
        // What the copy holds, read from the copy (not the live file, which has moved on).
        let copy = try Database(path: part, create: false)
        let store = OutboxStore(db: copy)
        let epoch: String, streams: [String: UInt64]
        do {
            epoch = try store.epoch() ?? ""
            streams = try store.lastSeqs().filter { $0.value > 0 }
            copy.close()
        } catch {
            copy.close()
            throw error
        }
        // Hashed last: opening and closing the copy above may still have rewritten its header.
        let digest = try SHA256Stream.file(part)
        try FileManager.default.moveItem(atPath: part, toPath: path)
        return BackupManifest(service: service, instance: instance, epoch: epoch, streams: streams,
                              size: digest.size, sha256: digest.hex, takenAt: takenAt)
    }
}
