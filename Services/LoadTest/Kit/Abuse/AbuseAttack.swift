import Foundation
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

    /// Runs `body` on a thread of its own; `stopAndWait` waits for it.
    func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
        lock.withLock { threads += 1 }
        let thread = Thread { [self] in
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
