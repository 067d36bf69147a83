/// `backup.start` (every service with a database, the edge included; operator only): begin a
/// consistent copy of the service's database, made on a thread of its own while the service
/// goes on answering. A copy already being made is joined rather than started twice.
public typealias BackupStartRequest = Empty

/// What one backup copy is: `cafectl backup` writes it beside the copy as
/// `<instance>.manifest.json`, and `cafectl restore` checks the copy against it.
public struct BackupManifest: Codable, Sendable, Equatable {
    public var service: String
    public var instance: String
    /// The outbox epoch the copy holds (a restore gives the service a new one).
    public var epoch: String
    /// The last sequence number of each stream in the copy's outbox: what consumers had been
    /// sent up to when the copy was taken, at most.
    public var streams: [String: UInt64]
    /// The copy's size in bytes, and its SHA-256 as 64 lower-case hex digits (`sha256sum`'s).
    public var size: Int
    public var sha256: String
    /// When the copy's snapshot was taken: everything committed before it is in the copy.
    public var takenAt: Timestamp

    public init(service: String, instance: String, epoch: String, streams: [String: UInt64], size: Int, sha256: String, takenAt: Timestamp) {
        self.service = service
        self.instance = instance
        self.epoch = epoch
        self.streams = streams
        self.size = size
        self.sha256 = sha256
        self.takenAt = takenAt
    }
}

/// Where a copy stands: `copying` (pages copied of the total), then `ready` with its manifest.
public struct BackupStatus: Codable, Sendable, Equatable {
    public var backupId: String
    public var state: String
    public var pagesCopied: Int
    public var pagesTotal: Int
    public var manifest: BackupManifest?

    public init(backupId: String, state: String, pagesCopied: Int, pagesTotal: Int, manifest: BackupManifest?) {
        self.backupId = backupId
        self.state = state
        self.pagesCopied = pagesCopied
        self.pagesTotal = pagesTotal
        self.manifest = manifest
    }
}

/// `backup.read`: the bytes of copy `backupId` from `offset` on (0 … its size).
public struct BackupReadRequest: Codable, Sendable, Equatable {
    public var backupId: String
    public var offset: Int

    public init(backupId: String, offset: Int) {
        self.backupId = backupId
        self.offset = offset
    }
}

/// One piece of a copy: its status and, once `ready`, up to `BackupChunk.maxBytes` from `offset`
/// as base64 (empty while `copying`, and at the end of the file).
public struct BackupChunk: Codable, Sendable, Equatable {
    /// The most raw bytes one chunk carries (a reply of about 350 KB).
    public static let maxBytes = 256 * 1024

    public var status: BackupStatus
    public var offset: Int
    public var data: String

    public init(status: BackupStatus, offset: Int, data: String) {
        self.status = status
        self.offset = offset
        self.data = data
    }
}
