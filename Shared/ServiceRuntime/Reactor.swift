import Foundation
import Messages
import ZeroMQ

/// A service's one event loop: polls its sockets, fires due timers, stops on shutdown.
///
/// Everything a service does happens on the thread that calls `run()`: sockets are created, used
/// and closed there, so no socket crosses threads.
public final class Reactor {
    private var poller = Poller()
    private var handlers: [() throws -> Void] = []
    private var timers: [Timer] = []
    private var pendingWork: [PendingWork] = []
    private let shutdown: ShutdownSignal
    private let logger: Logger
    /// The longest a poll waits, so a shutdown request is seen promptly.
    private let maxWaitMilliseconds: Int
    /// A handler or timer running this long is logged as a stall.
    public var stallWarningSeconds = 0.02
    /// How long a socket handler may work before it returns to the loop, leaving the rest queued:
    /// the poll reports the socket readable again at once, and meanwhile the other sockets and
    /// the timers get their turn. Bounded turns keep one busy input from holding every other
    /// waiting (the tail of sighting → region event was made of such waits).
    public static let timeSlice = 0.001

    struct PendingWork {
        let name: String
        let hasWork: () -> Bool
        let action: () throws -> Void
    }

    struct Timer {
        let name: String
        let interval: Double
        var due: Double
        let action: () throws -> Void
    }

    /// Whether shutdown was requested: long work inside one turn (a replay of many pages) checks
    /// it and leaves the rest for after a restart.
    public var isStopping: Bool { shutdown.isRequested }

    public init(shutdown: ShutdownSignal, logger: Logger, maxWaitMilliseconds: Int = 100) {
        self.shutdown = shutdown
        self.logger = logger
        self.maxWaitMilliseconds = maxWaitMilliseconds
    }

    /// Calls `handler` whenever `socket` is readable. The handler should drain what is queued.
    public func onReadable(_ socket: Socket, _ handler: @escaping () throws -> Void) {
        poller.register(socket, events: .readable)
        handlers.append(handler)
    }

    /// Watches `new` in the place of `old` (a socket closed and made again), with the same handler.
    public func replaceReadable(_ old: Socket, with new: Socket) {
        guard let index = poller.index(of: old) else { preconditionFailure("replacing a socket the reactor does not watch") }
        poller.replace(at: index, with: new)
    }

    /// Calls `action` every `seconds`, first after one interval.
    public func every(_ seconds: Double, name: String, _ action: @escaping () throws -> Void) {
        timers.append(Timer(name: name, interval: seconds, due: Self.monotonic() + seconds, action: action))
    }

    /// Calls `action` once a turn, after the sockets and timers, while `hasWork` says there is
    /// work left (a message's rest, put off past its time slice); the poll does not wait then.
    public func whilePending(name: String, hasWork: @escaping () -> Bool, _ action: @escaping () throws -> Void) {
        pendingWork.append(PendingWork(name: name, hasWork: hasWork, action: action))
    }

    /// Runs until shutdown is requested. A failing handler is logged, not fatal: one bad
    /// message must not take the service down.
    public func run() {
        while !shutdown.isRequested {
            let now = Self.monotonic()
            let nextDue = timers.map(\.due).min() ?? (now + 1)
            let idle = !pendingWork.contains { $0.hasWork() }
            let wait = idle ? max(0, min(maxWaitMilliseconds, Int(((nextDue - now) * 1000).rounded(.up)))) : 0
            let ready: [Int]
            do {
                ready = try poller.poll(timeoutMilliseconds: wait)
            } catch {
                logger.error("poll failed", ["error": "\(error)"])
                if error.isTerminated { return }
                continue
            }
            for index in ready {
                let started = Self.monotonic()
                do { try handlers[index]() } catch { logger.error("socket handler failed", ["error": "\(error)"]) }
                reportStall("socket \(index)", since: started)
            }
            let after = Self.monotonic()
            for index in timers.indices where timers[index].due <= after {
                timers[index].due = after + timers[index].interval
                let started = Self.monotonic()
                do { try timers[index].action() } catch {
                    logger.error("timer failed", ["timer": timers[index].name, "error": "\(error)"])
                }
                reportStall("timer \(timers[index].name)", since: started)
            }
            for work in pendingWork where work.hasWork() {
                let started = Self.monotonic()
                do { try work.action() } catch { logger.error("pending work failed", ["work": work.name, "error": "\(error)"]) }
                reportStall("pending \(work.name)", since: started)
            }
        }
    }

    /// Everything in a service waits while one handler runs: say so when one takes long.
    private func reportStall(_ what: String, since started: Double) {
        let seconds = Self.monotonic() - started
        if seconds >= stallWarningSeconds {
            logger.warning("reactor stalled", ["by": what, "ms": String(Int(seconds * 1000))])
        }
    }

    /// Seconds on a monotonic clock (never jumps with wall-clock changes).
    public static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
