import Dispatch
import Foundation
import Synchronization

/// Set once SIGTERM or SIGINT arrives; the reactor checks it between polls.
///
/// Signals are taken from the kernel by `DispatchSource` (as swift-service-lifecycle's
/// `UnixSignals` does), never by an async-signal handler, so nothing unsafe runs in signal context.
public final class ShutdownSignal: @unchecked Sendable {
    private let flag = Atomic<Bool>(false)
    /// Kept alive for the process lifetime; written once, by `installHandlers` on the main thread.
    private var sources: [DispatchSourceSignal] = []

    public init() {}

    /// Whether shutdown was requested.
    public var isRequested: Bool { flag.load(ordering: .acquiring) }

    /// Requests shutdown (signal handlers and tests).
    public func request() { flag.store(true, ordering: .releasing) }

    /// Routes SIGTERM and SIGINT to this flag, logging which arrived.
    public func installHandlers(logger: Logger) {
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [self] in
                logger.info("shutdown requested", ["signal": signalNumber == SIGTERM ? "SIGTERM" : "SIGINT"])
                request()
            }
            source.resume()
            sources.append(source)
        }
    }
}
