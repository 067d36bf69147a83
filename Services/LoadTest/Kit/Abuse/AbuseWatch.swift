import Foundation
import Messages
import Metrics
import ServiceRuntime
import ZeroMQ

/// What legitimate work sees of the platform's processes while `load-test abuse` runs: every
/// half second each process is asked `health` on a new connection (as a new client would: the
/// handshake is part of the answer time), and its resident memory is read from the answer.
/// Runs on a thread of its own, with its own sockets; phases (before, an attack, after) are
/// marked from the main thread.
final class AbuseWatch: @unchecked Sendable {
    /// One process watched: its name, request endpoint, and the client keys to reach it (deployed).
    struct Target: Sendable {
        var name: String
        var endpoint: String
        var curve: RequestClient.CurveClientKeys?
        /// Whether the run may go on without an answer (the edge and the bus are not required).
        var required: Bool
    }

    /// What one phase saw.
    struct Phase {
        var probes = 0
        var unanswered = 0
        var health = Histogram()
        /// order-service's `health` on one connection kept open: the time its reactor takes to
        /// answer a request (the reactor `order.place` waits for), without a handshake.
        var orderReactor = Histogram()
        var slowest: [String: Double] = [:]
        /// Each process's largest and last resident memory, bytes.
        var peakRSS: [String: Int] = [:]
        var lastRSS: [String: Int] = [:]

        var healthMaxMs: Double { slowest.values.max() ?? 0 }
    }

    /// A probe waits this long for an answer before counting it unanswered.
    static let probeTimeoutMilliseconds: Int32 = 5_000

    let targets: [Target]
    private let context: Context
    private let lock = NSLock()
    private var phase = Phase()
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)
    private var kept: RequestClient?

    init(context: Context, targets: [Target]) {
        self.context = context
        self.targets = targets
    }

    /// Starts probing every half second.
    func start() {
        let thread = Thread { [self] in
            while !lock.withLock({ stopped }) {
                let round = Reactor.monotonic()
                for target in targets { probe(target) }
                probeKept()
                let rest = 0.5 - (Reactor.monotonic() - round)
                if rest > 0 { Thread.sleep(forTimeInterval: rest) }
            }
            kept?.close()
            finished.signal()
        }
        thread.name = "abuse watch"
        thread.start()
    }

    /// Ends the current phase and starts the next: what the ended one saw.
    func nextPhase() -> Phase {
        lock.withLock {
            let ended = phase
            phase = Phase()
            // Memory is carried over: a phase starts where the last one ended.
            phase.lastRSS = ended.lastRSS
            return ended
        }
    }

    /// Stops the thread (after the round under way).
    func stop() {
        lock.withLock { stopped = true }
        finished.wait()
    }

    /// Asks order-service's health on the kept connection (made on this thread at the first probe).
    private func probeKept() {
        guard let target = targets.first(where: { $0.name == "order-service" }) else { return }
        let client = kept ?? RequestClient(context: context, endpoint: target.endpoint, timeoutMilliseconds: Self.probeTimeoutMilliseconds, curve: target.curve)
        kept = client
        let started = Reactor.monotonic()
        guard (try? client.call(Op.health, Empty(), as: HealthStatus.self)) != nil else { return }
        let micros = UInt64((Reactor.monotonic() - started) * 1_000_000)
        lock.withLock { phase.orderReactor.record(micros) }
    }

    private func probe(_ target: Target) {
        let client = RequestClient(context: context, endpoint: target.endpoint, timeoutMilliseconds: Self.probeTimeoutMilliseconds, curve: target.curve)
        defer { client.close() }
        let started = Reactor.monotonic()
        let status = try? client.call(Op.health, Empty(), as: HealthStatus.self)
        let ms = (Reactor.monotonic() - started) * 1_000
        lock.withLock {
            phase.probes += 1
            guard let status else {
                if target.required { phase.unanswered += 1 }
                phase.slowest[target.name] = max(phase.slowest[target.name] ?? 0, target.required ? ms : 0)
                return
            }
            phase.health.record(UInt64(ms * 1_000))
            phase.slowest[target.name] = max(phase.slowest[target.name] ?? 0, ms)
            if let rss = status.details["process.residentBytes"].flatMap(Int.init) {
                phase.lastRSS[target.name] = rss
                phase.peakRSS[target.name] = max(phase.peakRSS[target.name] ?? 0, rss)
            }
        }
    }
}
