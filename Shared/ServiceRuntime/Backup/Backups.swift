import Foundation
import Messages
import SQLite

/// A service's online backups: `backup.start` begins a consistent copy of its database on a
/// thread of its own (`BackupCopier`) into `<data-dir>/backup/`, and `backup.read` hands the
/// finished copy to the caller in chunks over the request socket, so an operator gets it
/// wherever cafectl runs, whichever host or container the service is on.
///
/// One copy at a time: a start while one is being made joins it; a start after one is ready
/// replaces it. A finished copy is removed when the next one starts, when it has not been read
/// for `idleSeconds`, or when the process starts again; the folder holds one copy at most, so
/// the disk needs room for one more database of this service while a backup is taken.
/// Operator only (`OpAccess`): the copy is the whole database.
public final class Backups {
    /// A ready copy no one has read for this long is removed.
    public static let idleSeconds = 600.0

    private let folder: String
    private let database: String
    private let service: String
    private let instance: String
    private let clock: any WallClock
    private let logger: Logger
    private var copier: BackupCopier?
    private var lastRead = 0.0

    /// Backups of the database at `database`, made in `folder` (emptied now: what a previous
    /// process left there is stale).
    public init(database: String, folder: String, service: String, instance: String, clock: any WallClock, logger: Logger) {
        self.database = database
        self.folder = folder
        self.service = service
        self.instance = instance
        self.clock = clock
        self.logger = logger
        if let stale = try? FileManager.default.contentsOfDirectory(atPath: folder) {
            for name in stale where name.hasPrefix("backup-") { try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent(name)) }
        }
    }

    /// Whether a copy is being made now, holding a read snapshot of the database: a TRUNCATE
    /// checkpoint would wait for it (up to the busy timeout, on the service's thread), so the
    /// host skips its timed checkpoint meanwhile. The WAL grows until the copy ends.
    public var holdsSnapshot: Bool {
        guard let copier else { return false }
        return !copier.current.done
    }

    /// Answers `backup.start` and `backup.read` on `router`.
    public func register(on router: RequestRouter) {
        router.on(Op.backupStart, BackupStartRequest.self) { [unowned self] _ in try self.start() }
        router.on(Op.backupRead, BackupReadRequest.self) { [unowned self] request in try self.read(request) }
    }

    /// Starts a copy, or joins the one being made.
    func start() throws -> BackupStatus {
        if let copier, !copier.current.done { return status(of: copier) }
        discard()
        guard database != ":memory:", !database.isEmpty else {
            throw ServiceError(.backupFailed, "\(service) keeps its database in memory: there is no file to copy")
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ServiceError(.backupFailed, "cannot make the backup folder \(folder): \(error)")
        }
        let id = "backup-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let copier = BackupCopier(id: id, folder: folder)
        self.copier = copier
        lastRead = Reactor.monotonic()
        logger.info("backup started", ["backup.id": id, "backup.path": copier.path])
        copier.start(database: database, service: service, instance: instance, clock: clock, logger: logger)
        return status(of: copier)
    }

    /// The status of the copy, and once it is ready the chunk at `offset`.
    func read(_ request: BackupReadRequest) throws -> BackupChunk {
        if let copier, copier.current.done, copier.current.failure == nil, Reactor.monotonic() - lastRead > Self.idleSeconds { discard() }
        guard let copier, copier.id == request.backupId else {
            throw ServiceError(.unknownBackup, "\(service) holds no backup \(Quoting.quoted(Quoting.cut(request.backupId))): start one with backup.start")
        }
        lastRead = Reactor.monotonic()
        let progress = copier.current
        if let failure = progress.failure {
            self.copier = nil
            throw ServiceError(.backupFailed, "the copy of \(service)'s database failed: \(failure)")
        }
        let status = status(of: copier)
        guard let manifest = progress.manifest else { return BackupChunk(status: status, offset: request.offset, data: "") }
        guard (0...manifest.size).contains(request.offset) else {
            throw ServiceError(.invalidField, "body.offset \(request.offset) must be 0…\(manifest.size), the copy's size")
        }
        guard let file = FileHandle(forReadingAtPath: copier.path) else {
            self.copier = nil
            throw ServiceError(.backupFailed, "the copy \(copier.path) is gone from \(service)'s backup folder")
        }
        defer { try? file.close() }
        try file.seek(toOffset: UInt64(request.offset))
        let data = try file.read(upToCount: BackupChunk.maxBytes) ?? Data()
        return BackupChunk(status: status, offset: request.offset, data: data.base64EncodedString())
    }

    /// Removes the copy this service holds, stopping it if it is still being made.
    public func discard() {
        guard let copier else { return }
        copier.stop()
        if copier.current.done { try? FileManager.default.removeItem(atPath: copier.path) }
        self.copier = nil
    }

    private func status(of copier: BackupCopier) -> BackupStatus {
        let progress = copier.current
        return BackupStatus(backupId: copier.id, state: progress.manifest == nil ? "copying" : "ready",
                            pagesCopied: progress.copied, pagesTotal: progress.total, manifest: progress.manifest)
    }
}
