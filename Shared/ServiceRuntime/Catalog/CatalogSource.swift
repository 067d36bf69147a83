import Campus
import Dispatch
import Foundation
import Messages
import Synchronization

/// The campus catalog a running service uses, and its reload without a restart: on SIGHUP and on
/// `catalog.reload` (operators only) the file is read again and validated whole. A catalog that
/// validates replaces the one in use at once (observers are told, on the reactor's thread); one
/// that does not is refused with `catalog.invalid` naming the field, and the one in use is kept.
/// Open orders and reservations carry what they were made with, so a switch never changes them.
public final class CatalogSource: @unchecked Sendable {
    public let path: String
    public private(set) var catalog: CampusCatalog
    /// SHA-256 of the file in use, hex (as `sha256sum` prints it).
    public private(set) var digest: String
    public private(set) var loadedAt: Timestamp
    /// The SIGHUP count last acted on.
    private var hangups = 0
    private var observers: [(CampusCatalog) -> Void] = []

    /// The catalog at `path`, read and validated now (a bad one stops the service at start).
    public init(path: String, now: Timestamp) throws {
        self.path = path
        let (catalog, digest) = try Self.read(path)
        self.catalog = catalog
        self.digest = digest
        loadedAt = now
    }

    /// Calls `observer` with the new catalog after each reload that changed it.
    public func onChange(_ observer: @escaping (CampusCatalog) -> Void) { observers.append(observer) }

    /// Reloads on SIGHUP (checked every half second on the reactor), answers `catalog.reload`,
    /// and shows the digest in health.
    public func attach(to host: ServiceHost) {
        HangupSignal.shared.start()
        hangups = HangupSignal.shared.count
        // The handlers hold the parts they use, never the host, whose reactor and router hold them.
        let (clock, logger) = (host.clock, host.logger)
        host.reactor.every(0.5, name: "catalog.reload") { [self] in
            let count = HangupSignal.shared.count
            guard count != hangups else { return }
            hangups = count
            _ = try? reload(service: logger.instance, now: clock.now(), logger: logger, reason: "SIGHUP")
        }
        host.requests.router.on(Op.catalogReload, CatalogReloadRequest.self) { [self] _ in
            try reload(service: logger.instance, now: clock.now(), logger: logger, reason: "catalog.reload")
        }
        host.requests.addHealthDetails { [self] in ["catalog.digest": digest, "catalog.cafes": "\(catalog.cafes.count)"] }
    }

    /// Reads the file again: the new catalog in use when it validates (and differs), else the
    /// refusal `catalog.invalid`, the one in use kept.
    @discardableResult
    public func reload(service: String, now: Timestamp, logger: Logger, reason: String) throws -> CatalogReloadReply {
        let fresh: (catalog: CampusCatalog, digest: String)
        do {
            fresh = try Self.read(path)
        } catch {
            logger.error("catalog not reloaded; the one in use is kept", ["catalog.path": path, "reason": reason, "error": "\(error)"])
            throw ServiceError(.catalogInvalid, "\(error); the catalog in use is kept")
        }
        let changed = fresh.digest != digest
        if changed {
            catalog = fresh.catalog
            digest = fresh.digest
            loadedAt = now
            observers.forEach { $0(fresh.catalog) }
            logger.info("catalog reloaded", ["catalog.path": path, "catalog.digest": digest, "cafes": "\(catalog.cafes.count)", "reason": reason])
        }
        return CatalogReloadReply(service: service, changed: changed, cafes: catalog.cafes.count, digest: digest, loadedAt: loadedAt)
    }

    private static func read(_ path: String) throws -> (CampusCatalog, String) {
        guard let data = FileManager.default.contents(atPath: path) else { throw CatalogError(field: path, problem: "cannot read the file") }
        return (try CampusCatalog.decode(data), SHA256.hex(data))
    }
}
