import Dispatch
import Foundation
import Messages
import Synchronization

/// The registry a running process authorizes against: read at start, re-read on SIGHUP and when
/// the file changes (checked every half second), shared by the ZAP thread and the reactor.
///
/// A registry that no longer reads (a half-edited file) is logged and the last good one kept, so
/// a typo cannot open the platform or lock everybody out.
public final class LiveRegistry: @unchecked Sendable {
    public let folder: KeyFolder
    private let state: Mutex<(registry: KeyRegistry, stamp: FileStamp?)>
    /// The SIGHUP count last acted on.
    private let hangups = Atomic<Int>(0)
    private var observers: [(KeyRegistry, KeyRegistry) -> Void] = []

    public init(folder: KeyFolder) throws(SecurityError) {
        self.folder = folder
        let stamp = FileStamp(path: folder.registryPath)
        state = Mutex((try folder.registry(), stamp))
    }

    /// The registry as of now.
    public var current: KeyRegistry { state.withLock { $0.registry } }

    /// Calls `observer(old, new)` on the reactor thread after each reload that changed the registry.
    public func onChange(_ observer: @escaping (KeyRegistry, KeyRegistry) -> Void) { observers.append(observer) }

    /// Re-reads on SIGHUP and when the file changes; runs on `reactor`'s thread.
    public func attach(to reactor: Reactor, logger: Logger) {
        HangupSignal.shared.start()
        hangups.store(HangupSignal.shared.count, ordering: .relaxed)
        reactor.every(0.5, name: "keys.reload") { [self] in reloadIfNeeded(logger: logger) }
    }

    /// Re-reads the registry when SIGHUP came or its file changed. Returns whether it was replaced.
    @discardableResult
    public func reloadIfNeeded(logger: Logger) -> Bool {
        let hangupsNow = HangupSignal.shared.count
        let signalled = hangups.exchange(hangupsNow, ordering: .acquiring) != hangupsNow
        let stamp = FileStamp(path: folder.registryPath)
        let (old, changed) = state.withLock { ($0.registry, $0.stamp != stamp) }
        guard signalled || changed else { return false }
        do {
            let fresh = try folder.registry()
            state.withLock { $0 = (fresh, stamp) }
            let removed = old.principals.filter { fresh.principal(key: $0.publicKey)?.name != $0.name }.map(\.name)
            logger.info("key registry reloaded", ["keys.count": "\(fresh.principals.count)", "keys.revoked": removed.joined(separator: ","),
                                                  "reason": signalled ? "SIGHUP" : "file changed"])
            if fresh != old { observers.forEach { $0(old, fresh) } }
            return true
        } catch {
            // Keep serving with the last good registry, and do not retry until the file changes again.
            state.withLock { $0.stamp = stamp }
            logger.error("key registry not reloaded; keeping the last good one", ["error": error.message, "keys.path": folder.registryPath])
            return false
        }
    }
}

/// What identifies one version of a file: inode, size and modification time.
struct FileStamp: Equatable, Sendable {
    let inode: UInt64
    let size: Int64
    let seconds: Int
    let nanoseconds: Int

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        seconds = info.st_mtim.tv_sec
        nanoseconds = info.st_mtim.tv_nsec
    }
}
