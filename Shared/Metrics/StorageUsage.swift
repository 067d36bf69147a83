import Foundation

/// What a process's SQLite file and its folder's file system hold, for health: the database and
/// its write-ahead log in bytes, and the size and free space of the file system under the data
/// folder (`statvfs`), so a disk filling up is seen before writes fail with `storage.full`.
public enum StorageUsage {
    /// `db.bytes`, `db.walBytes`, `fs.bytes` and `fs.availableBytes` (free to an unprivileged
    /// writer) for the database at `databasePath`; a figure that cannot be read is left out.
    public static func healthDetails(databasePath: String) -> [String: String] {
        var details: [String: String] = [:]
        if let size = fileSize(databasePath) { details["db.bytes"] = "\(size)" }
        details["db.walBytes"] = "\(fileSize(databasePath + "-wal") ?? 0)"
        if let fs = fileSystem(containing: (databasePath as NSString).deletingLastPathComponent) {
            details["fs.bytes"] = "\(fs.size)"
            details["fs.availableBytes"] = "\(fs.available)"
        }
        return details
    }

    /// A file's size in bytes, nil when it does not exist.
    public static func fileSize(_ path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt64(max(info.st_size, 0))
    }

    /// The size of the file system holding `folder` and the bytes free to an unprivileged writer.
    public static func fileSystem(containing folder: String) -> (size: UInt64, available: UInt64)? {
        var info = statvfs()
        guard statvfs(folder.isEmpty ? "." : folder, &info) == 0 else { return nil }
        let unit = UInt64(info.f_frsize)
        return (UInt64(info.f_blocks) * unit, UInt64(info.f_bavail) * unit)
    }
}
