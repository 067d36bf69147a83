import Foundation
import Messages
import SQLite

/// Puts a service's database back from a backup copy (`cafectl restore`), in its data folder,
/// while the service is stopped:
///
/// 1. the copy must be the one its manifest describes (size and SHA-256);
/// 2. no process may have the service's database open (a running service holds a lock on it);
/// 3. the copy is written beside the database, checked (`quick_check`), and given a new outbox
///    epoch: its outbox numbers events from where the copy ended, and consumers have already
///    applied events under those numbers since. A new epoch makes every consumer reset its
///    cursors for this publisher and replay it from the start, deduping by event id, so the
///    events the copy holds are not applied twice and the new ones are not dropped as seen;
/// 4. the database is replaced: the old file and its WAL are kept beside it as
///    `<name>.replaced-<time>` and `<name>.replaced-<time>-wal` (never applied to the restored
///    file), the shared-memory file removed, the new file given the old one's owner and mode.
public enum BackupRestore {
    /// Why a restore did not happen; nothing in the data folder was changed.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// What a restore did.
    public struct Outcome: Sendable {
        public let database: String
        public let manifest: BackupManifest
        public let newEpoch: String
        /// Where the replaced database went; nil when there was none (a lost volume).
        public let replacedAs: String?
    }

    /// The manifest written beside a copy: `X.sqlite` → `X.manifest.json`.
    public static func manifestPath(ofCopy copy: String) -> String {
        ((copy as NSString).deletingPathExtension as String) + ".manifest.json"
    }

    /// Restores `copy` (with its manifest beside it) as the database of its instance in `dataDir`.
    public static func restore(copy: String, dataDir: String, clock: any WallClock = SystemClock()) throws -> Outcome {
        let manifest = try readManifest(manifestPath(ofCopy: copy))
        let digest = try SHA256Stream.file(copy)
        guard digest.size == manifest.size, digest.hex == manifest.sha256 else {
            throw Refusal(description: "\(copy) is not the copy its manifest describes: \(digest.size) bytes, SHA-256 \(digest.hex); "
                          + "the manifest says \(manifest.size) bytes, \(manifest.sha256)")
        }
        guard manifest.instance.range(of: "^[A-Za-z0-9._-]{1,64}$", options: .regularExpression) != nil, !manifest.instance.hasPrefix(".") else {
            throw Refusal(description: "the manifest's instance \(Quoting.quoted(Quoting.cut(manifest.instance))) is not an instance name")
        }
        let database = (dataDir as NSString).appendingPathComponent("\(manifest.instance).sqlite")
        if let holder = openedBy(database) {
            throw Refusal(description: "\(database) is open in process \(holder): stop \(manifest.instance) first")
        }
        let fm = FileManager.default
        guard fm.fileExists(atPath: dataDir) else { throw Refusal(description: "no data folder \(dataDir)") }
        let staged = database + ".restoring"
        try? fm.removeItem(atPath: staged)
        try fm.copyItem(atPath: copy, toPath: staged)
        let newEpoch = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        do {
            try stamp(staged, epoch: newEpoch)
        } catch {
            try? fm.removeItem(atPath: staged)
            throw error
        }
        let old = try? fm.attributesOfItem(atPath: database)
        var replacedAs: String?
        if old != nil {
            let stampText = String(clock.now().description.filter { $0.isNumber }.prefix(14))
            let aside = database + ".replaced-" + stampText
            try fm.moveItem(atPath: database, toPath: aside)
            if fm.fileExists(atPath: database + "-wal") { try fm.moveItem(atPath: database + "-wal", toPath: aside + "-wal") }
            replacedAs = aside
        } else if fm.fileExists(atPath: database + "-wal") {
            // A WAL without its database belongs to no file we keep, and must not meet the new one.
            try fm.removeItem(atPath: database + "-wal")
        }
        try? fm.removeItem(atPath: database + "-shm")
        try fm.moveItem(atPath: staged, toPath: database)
        let owner = old ?? (try? fm.attributesOfItem(atPath: dataDir))
        if let owner {
            var attributes: [FileAttributeKey: Any] = [:]
            attributes[.ownerAccountID] = owner[.ownerAccountID]
            attributes[.groupOwnerAccountID] = owner[.groupOwnerAccountID]
            if let old, let mode = old[.posixPermissions] { attributes[.posixPermissions] = mode }
            try? fm.setAttributes(attributes, ofItemAtPath: database)
        }
        return Outcome(database: database, manifest: manifest, newEpoch: newEpoch, replacedAs: replacedAs)
    }

    /// Reads and checks a manifest file (bounded: a manifest is a few hundred bytes).
    public static func readManifest(_ path: String) throws -> BackupManifest {
        guard let data = FileManager.default.contents(atPath: path) else { throw Refusal(description: "no manifest at \(path)") }
        guard data.count <= 1_048_576 else { throw Refusal(description: "\(path) is \(data.count) bytes: not a manifest") }
        do {
            return try JSONDecoder().decode(BackupManifest.self, from: data)
        } catch {
            throw Refusal(description: "\(path) is not a backup manifest: \(error)")
        }
    }

    /// Checks the staged copy and gives its outbox `epoch`.
    private static func stamp(_ path: String, epoch: String) throws {
        let db = try Database(path: path, create: false)
        defer { db.close() }
        if let problems = try db.quickCheckProblems() { throw Refusal(description: "the copy is damaged (quick_check: \(problems))") }
        try OutboxStore(db: db).migrate()
        try db.transaction {
            try db.run("DELETE FROM outbox_epoch")
            try OutboxStore(db: db).storeEpoch(epoch)
        }
    }

    /// The process holding `database` open, if any: every SQLite connection in WAL mode holds a
    /// read lock on the shared-memory file's first lock byte for as long as it is open, and one
    /// in rollback mode a lock in the database file's lock range while it reads or writes.
    public static func openedBy(_ database: String) -> Int32? {
        for (path, start, length) in [(database + "-shm", 120, 9), (database, 0x4000_0000, 512)] {
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var lock = flock()
            lock.l_type = Int16(F_WRLCK)
            lock.l_whence = Int16(SEEK_SET)
            lock.l_start = off_t(start)
            lock.l_len = off_t(length)
            if fcntl(fd, F_GETLK, &lock) == 0, lock.l_type != Int16(F_UNLCK) { return lock.l_pid }
        }
        return nil
    }
}
