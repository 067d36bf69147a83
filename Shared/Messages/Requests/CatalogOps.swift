/// `catalog.reload` (order-service, region-monitor, notification-service): read the catalog file
/// again; switch to it when it validates whole, else keep the one in use and answer `catalog.invalid`.
public typealias CatalogReloadRequest = Empty

/// What a reload did.
public struct CatalogReloadReply: Codable, Sendable, Equatable {
    public var service: String
    /// False when the file was the catalog already in use.
    public var changed: Bool
    public var cafes: Int
    /// SHA-256 of the file now in use, hex: the same file gives the same digest in every service.
    public var digest: String
    public var loadedAt: Timestamp
    public init(service: String, changed: Bool, cafes: Int, digest: String, loadedAt: Timestamp) {
        self.service = service
        self.changed = changed
        self.cafes = cafes
        self.digest = digest
        self.loadedAt = loadedAt
    }
}
