import Dispatch
import Foundation
import Synchronization

/// SIGHUP, once per process, for every part that reloads on it (the key registry, the catalog):
/// each keeps the count it last saw and reloads when the count has moved. One dispatch source,
/// so no reader depends on how many sources for one signal libdispatch delivers to.
public final class HangupSignal: @unchecked Sendable {
    public static let shared = HangupSignal()
    private let received = Atomic<Int>(0)
    private let source = Mutex<DispatchSourceSignal?>(nil)

    /// Starts listening (once; later calls do nothing).
    public func start() {
        source.withLock { source in
            guard source == nil else { return }
            signal(SIGHUP, SIG_IGN)
            let created = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
            created.setEventHandler { [self] in _ = received.add(1, ordering: .releasing) }
            created.resume()
            source = created
        }
    }

    /// How many SIGHUPs came since start.
    public var count: Int { received.load(ordering: .acquiring) }
}
