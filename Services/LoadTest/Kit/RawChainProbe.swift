import Foundation
import Messages
import Metrics
import ServiceRuntime
import ZeroMQ

/// The raw figure beside `load-test run`'s latencies: the same hand-offs as an order and as a
/// sighting take through the platform, made by libzmq alone between processes that do no work,
/// at the same time as the run and on the same cores. What it measures is what this machine
/// charges for the hops themselves (waking each process and libzmq's I/O threads), so a platform
/// latency reads against it as the throughput targets read against raw libzmq.
///
/// Processes, each a `load-test bench-peer` with its own context and I/O thread: a proxy as the
/// bus (`zmq_proxy`), a REP echo as a service answering a request, and two relays as services
/// passing an event on (`raw.1.` → `raw.2.` → `raw.3.`). Two threads here walk the chains on a
/// schedule, each walk timed from its intended start as the platform's are:
///
/// - an order's: three REQ/REP round trips (reserve, place, bump), then three pub/sub hops
///   through the proxy (the ready fact: kitchen → order-service → notification-service → here);
/// - a sighting's: one direct hop (here → beacon-ingest), then two pub/sub hops through the
///   proxy (→ region-monitor → here).
final class RawChainProbe: @unchecked Sendable {
    /// What one chain measured over the run's window.
    struct Figures {
        var total = Histogram()
        /// Order chain: one round trip (each of the three); sighting chain: unused.
        var roundTrip = Histogram()
        /// The pub/sub hops through the proxy, from the first publication to the last receipt.
        var hops = Histogram()
        /// Walks whose last message did not come within a second.
        var timeouts = 0
    }

    static let walkTimeout: Int32 = 1_000
    static let requestBytes = 300, eventBytes = 1_200, sightingBytes = 300

    private var peers: [PeerProcess] = []
    private let context: Context
    private let lock = NSLock()
    private var start: Double?
    private var stopped = false
    private var order = Figures(), sighting = Figures()
    private var failures: [String] = []
    private let done = DispatchSemaphore(value: 0)
    private var threads = 0

    /// Starts the peers and both walkers, which warm their chains up and then wait for `begin`.
    /// Throws when a peer does not start or a chain does not pass within 5 s. With `nice`, all of
    /// it is made from a thread set to that nice value first, so the peers, the walkers and this
    /// probe's I/O thread run at it whatever the caller's priority (`GeneratorPriority`).
    init(orderRate: Double, sightingRate: Double, measureFrom: Double, end: Double, nice: Int? = nil) throws {
        context = try Context(ioThreads: 1)
        guard let nice else {
            try start(orderRate: orderRate, sightingRate: sightingRate, measureFrom: measureFrom, end: end)
            return
        }
        let outcome = OutcomeBox()
        let made = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            GeneratorPriority.set(nice)
            do {
                try start(orderRate: orderRate, sightingRate: sightingRate, measureFrom: measureFrom, end: end)
            } catch {
                outcome.error = error
            }
            made.signal()
        }
        thread.name = "raw chain start"
        thread.start()
        made.wait()
        if let error = outcome.error { throw error }
    }

    private final class OutcomeBox: @unchecked Sendable {
        var error: Error?
    }

    private func start(orderRate: Double, sightingRate: Double, measureFrom: Double, end: Double) throws {
        do {
            let proxy = try PeerProcess(["proxy"])
            peers.append(proxy)
            let sides = try proxy.line(timeoutMilliseconds: 10_000)?.split(separator: " ").map(String.init) ?? []
            guard sides.count == 2 else { throw ServiceError(.internalError, "the raw chain's proxy did not start") }
            let echo = try PeerProcess(["rep"])
            peers.append(echo)
            guard let rep = try echo.line(timeoutMilliseconds: 10_000) else { throw ServiceError(.internalError, "the raw chain's REP peer did not start") }
            var entry = ""
            for (from, to) in [("raw.1.", "raw.2."), ("raw.2.", "raw.3.")] {
                let relay = try PeerProcess(["relay", sides[0], sides[1], from, to])
                peers.append(relay)
                guard let pull = try relay.line(timeoutMilliseconds: 10_000) else { throw ServiceError(.internalError, "the raw chain's relay did not start") }
                if entry.isEmpty { entry = pull }
            }
            let ready = DispatchSemaphore(value: 0)
            let entryPoint = entry
            let walkers = [(orderRate, "o"), (sightingRate, "s")].filter { $0.0 > 0 }
            for (rate, kind) in walkers {
                threads += 1
                let thread = Thread { [self] in
                    walk(kind: kind, rate: rate, xsub: sides[0], xpub: sides[1], rep: rep, entry: entryPoint, measureFrom: measureFrom, end: end, ready: ready)
                    done.signal()
                }
                thread.name = "raw chain \(kind)"
                thread.start()
            }
            for _ in walkers { _ = ready.wait(timeout: .now() + 10) }
            if let failure = lock.withLock({ failures.first }) { throw ServiceError(.internalError, failure) }
        } catch {
            finish()
            throw error
        }
    }

    /// The schedule's zero, on `Reactor.monotonic()`'s clock: walk k is due at start + k / rate.
    func begin(at start: Double) {
        lock.withLock { self.start = start }
    }

    /// Stops the walkers and the peers; what each chain measured (nil for one not walked).
    @discardableResult
    func finish() -> (order: Figures, sighting: Figures) {
        lock.withLock { stopped = true }
        for _ in 0..<threads { done.wait() }
        threads = 0
        for peer in peers { peer.stop() }
        peers = []
        return lock.withLock { (order, sighting) }
    }

    private func walk(kind: String, rate: Double, xsub: String, xpub: String, rep: String, entry: String, measureFrom: Double, end: Double,
                      ready: DispatchSemaphore) {
        var signalled = false
        defer { if !signalled { ready.signal() } }
        do {
            let isOrder = kind == "o"
            let req = try Socket(context, .req), push = try Socket(context, .push), pub = try Socket(context, .pub), sub = try Socket(context, .sub)
            defer { for socket in [req, push, pub, sub] { socket.close() } }
            for socket in [req, push, pub, sub] { try socket.setLinger(milliseconds: 0) }
            try sub.setReceiveHighWaterMark(0)
            try sub.subscribe("raw.3.\(kind).")
            try sub.connect(xpub)
            try pub.connect(xsub)
            try req.connect(rep)
            try push.connect(entry)
            let first = Data("raw.1.\(kind).".utf8)
            let request = Data(repeating: UInt8(ascii: "r"), count: Self.requestBytes)
            var number: UInt64 = 0
            /// Sends walk `number` in (a publication, or the direct hop) and waits for it out.
            func pass(_ body: Data) throws -> Bool {
                number += 1
                var payload = body
                withUnsafeBytes(of: number.littleEndian) { payload.replaceSubrange(0..<8, with: $0) }
                if isOrder { try pub.send(multipart: [first, payload]) } else { try push.send(multipart: [first, payload]) }
                let deadline = Reactor.monotonic() + Double(Self.walkTimeout) / 1000
                while true {
                    let left = Int32(max(0, (deadline - Reactor.monotonic()) * 1000))
                    guard let frames = try sub.receiveMultipart(timeoutMilliseconds: left) else { return false }
                    // A late one of an earlier walk is skipped.
                    if frames.count == 2, frames[1].count >= 8, frames[1].prefix(8).elementsEqual(payload.prefix(8)) { return true }
                }
            }
            /// One request answered within the walk's timeout. A REQ socket cannot send again
            /// before its answer, so a walker whose echo stopped answering ends (and says so)
            /// rather than hold the run's end.
            func roundTrip() throws -> Bool {
                try req.send(request)
                return try req.receiveMultipart(timeoutMilliseconds: Self.walkTimeout) != nil
            }
            let body = Data(repeating: UInt8(ascii: "x"), count: isOrder ? Self.eventBytes : Self.sightingBytes)
            // Warm up: until a walk passes (the subscriptions have reached the proxy and the relays).
            let warmDeadline = Reactor.monotonic() + 5
            while try !pass(body) {
                if Reactor.monotonic() > warmDeadline { throw ServiceError(.internalError, "the raw \(isOrder ? "order" : "sighting") chain did not pass within 5 s") }
            }
            for _ in 0..<3 where isOrder {
                guard try roundTrip() else { throw ServiceError(.internalError, "the raw chain's REP peer did not answer within 1 s") }
            }
            signalled = true
            ready.signal()
            var start: Double?
            while start == nil {
                if lock.withLock({ stopped }) { return }
                start = lock.withLock { self.start }
                if start == nil { Thread.sleep(forTimeInterval: 0.001) }
            }
            var k = 0.0
            while !lock.withLock({ stopped }) {
                let intended = k / rate
                k += 1
                guard intended < end else { return }
                let due = start! + intended
                let wait = due - Reactor.monotonic()
                if wait > 0 { Thread.sleep(forTimeInterval: wait) }
                let began = Reactor.monotonic()
                var answered = true
                for _ in 0..<3 where isOrder && answered { answered = try roundTrip() }
                guard answered else {
                    lock.withLock {
                        order.timeouts += 1
                        failures.append("raw chain: the REP peer stopped answering; the order chain ended early")
                    }
                    return
                }
                let published = Reactor.monotonic()
                let passed = try pass(body)
                let finished = Reactor.monotonic()
                guard intended >= measureFrom else { continue }
                lock.withLock {
                    var figures = isOrder ? order : sighting
                    if passed {
                        figures.total.record(UInt64(max(0, finished - due) * 1e6))
                        if isOrder { figures.roundTrip.record(UInt64(max(0, published - began) / 3 * 1e6)) }
                        figures.hops.record(UInt64(max(0, finished - published) * 1e6))
                    } else {
                        figures.timeouts += 1
                    }
                    if isOrder { order = figures } else { sighting = figures }
                }
            }
        } catch {
            lock.withLock { failures.append("raw chain: \(error)") }
        }
    }
}
