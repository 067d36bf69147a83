import Foundation
import Glibc
import Policy
import ServiceRuntime
import ZeroMQ

/// One attack `load-test abuse` runs beside the steady load: it says which keys it needs (deployed
/// mode mints them), starts its own threads and sockets, and when stopped says what it did.
/// An attack must not share a socket with the steady load or with another thread.
protocol AbuseAttack: AnyObject {
    /// Its name on the command line (`--attacks`).
    var name: String { get }
    /// What it does, in one line, for the report.
    var summary: String { get }
    /// The keys it acts with (deployed mode), named after `runID`.
    func keys(runID: String) -> [LoadSecurity.Mint]
    /// Starts its threads; `keys` gives the CURVE client keys of a minted name for a server (nil in plain mode).
    func start(context: Context, keys: AttackKeys) throws
    /// Stops its threads and returns its own counts (requests answered, refused, …).
    func stop() -> [(String, Int)]
}

/// The client keys an attack's sockets use: resolved on the main thread, handed to the attack's threads.
struct AttackKeys: Sendable {
    /// (minted name, server name) → keys; empty in plain mode.
    var byName: [String: [String: RequestClient.CurveClientKeys]]

    func keys(_ name: String, server: String) -> RequestClient.CurveClientKeys? { byName[name]?[server] }
}

/// The attacks `load-test abuse` knows, by name, in the order it runs them.
enum AbuseAttacks {
    static let names = ["handshakes", "replays", "requests", "subscriptions", "slow-subscriber"]

    static func make(_ name: String, settings: AbuseSettings) -> AbuseAttack? {
        switch name {
        case "handshakes": HandshakeFlood(settings: settings)
        case "replays": ReplayFlood(settings: settings)
        case "requests": RequestFlood(settings: settings)
        case "subscriptions": SubscriptionChurn(settings: settings)
        case "slow-subscriber": SlowSubscriber(settings: settings)
        default: nil
        }
    }
}

/// A stop flag and counters shared by an attack's threads.
final class AttackCounters: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var counts: [String: Int] = [:]
    private var threads = 0
    private let finished = DispatchSemaphore(value: 0)

    var isStopped: Bool { lock.withLock { stopped } }

    func add(_ key: String, _ n: Int = 1) { lock.withLock { counts[key, default: 0] += n } }

    /// Runs `body` on a thread of its own, at the attacker's priority; `stopAndWait` waits for it.
    func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
        lock.withLock { threads += 1 }
        let thread = Thread { [self] in
            AttackerHost.lowerCallingThread()
            body()
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Asks every thread to stop and waits for them; the counts, sorted by name.
    func stopAndWait() -> [(String, Int)] {
        let n = lock.withLock {
            stopped = true
            return threads
        }
        for _ in 0..<n { finished.wait() }
        return lock.withLock { counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
    }
}

/// The attacker stands for other hosts. On one machine its own work (generating keys, CURVE's
/// client side, 50 replay clients reading 1 MB pages, opening 60,000 connections) would take the
/// platform's cores from it, and on the steady load's context its connections would hold the
/// libzmq I/O thread the steady load measures with: what legitimate work saw would be the
/// attacker's own cost. So attacks run on a context of their own, and their threads — libzmq's
/// I/O and reaper threads of that context among them, which inherit the policy of the thread that
/// starts them — run at `SCHED_IDLE`: they get every cycle the platform leaves, as a remote host
/// gets its own, and the report says how much the attack did with them.
enum AttackerHost {
    /// Linux's `SCHED_IDLE` (not exported by Swift's Glibc module).
    static let schedIdle: Int32 = 5

    /// Puts the calling thread at `SCHED_IDLE` (no privilege needed to lower oneself); threads it
    /// starts later inherit it.
    static func lowerCallingThread() {
        var parameters = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, schedIdle, &parameters)
    }

    /// A context whose I/O threads run at `SCHED_IDLE`: made, and its threads started (libzmq
    /// starts them with the first socket), on a thread lowered first.
    static func makeContext(ioThreads: Int32 = 1) throws -> Context {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            lowerCallingThread()
            box.result = Result {
                let context = try Context(ioThreads: ioThreads, maxSockets: 65_536)
                try Socket(context, .pair).close()
                return context
            }
            done.signal()
        }
        thread.start()
        done.wait()
        return try box.result!.get()
    }

    private final class ResultBox: @unchecked Sendable {
        var result: Result<Context, Error>?
    }
}
