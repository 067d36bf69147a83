import Campus
import Foundation
import Messages
import RegionMonitorCore
import ServiceRuntime
import ZeroMQ

/// (b) sightings per second through beacon-ingest → bus → region-monitor, with nothing lost, in
/// plain or deployed mode.
///
/// Starts its own bus, beacon-ingest and region-monitor (the executables beside this one) on free
/// loopback ports with a fresh data folder (deployed: and a fresh key folder; the sightings go
/// through a gateway key, the bus is watched and health read as the operator), registers the
/// devices, then sends `ingest.batch` requests open-loop at stepped rates. A step holds when
/// region-monitor consumed every sighting beacon-ingest accepted and the achieved rate is within
/// 5% of the target. At half the best rate it times sighting → region event from each batch's
/// intended send time. The three processes' CPU time is read from /proc around each step.
final class PlatformBenchmark {
    struct Step {
        var target: Double
        var achieved: Double
        var accepted: Int
        var consumed: Int
        /// CPU microseconds the bus, beacon-ingest and region-monitor spent per consumed sighting.
        var cpuMicrosPerSighting: Double?
        var holds: Bool { consumed == accepted && achieved >= target * 0.95 }
    }

    struct Result {
        var mode: SocketSecurity.Mode
        var steps: [Step]
        var sustained: Double
        var latencyRate: Double
        /// Sorted sighting → region event latencies in milliseconds at steady state: after
        /// `warmSeconds` at the latency rate, when every stale deadline of the steps before has passed.
        var latencies: [Double]
        var warmSeconds: Double
        /// The raw chain of a sighting's hand-offs (one direct hop, two via a proxy: libzmq alone,
        /// `RawChainProbe`), walked 100 times a second over the same measured seconds, in ms; nil
        /// when its peers did not start.
        var rawChain: LatencySummary?
        /// The latency rate again with half the devices gone quiet: their answers going stale.
        var wave: StaleWave
        var devices: Int
        var regionBytesPerDevice: Double?
        /// Devices region-monitor tracked when its memory was read (what the memory is divided by).
        var trackedDevices: Int
        /// region-monitor's CPU per device over the first pass (each device first seen, 4 sightings).
        var firstSeenMicrosPerDevice: Double?
        /// Platform CPU per sighting over the held steps.
        var cpuMicrosPerSighting: Double?
        /// Platform CPU per additional sighting between the lowest and the highest held step: the
        /// cost at the margin, without what the processes spend at any rate (timers, heartbeats).
        var marginalCPUMicrosPerSighting: Double?
        /// region-monitor stopped and started again with every device tracked: seconds from the
        /// start to its first health answer, and the devices that answer says it tracks.
        var restartSeconds: Double?
        var restartTracked: Int
    }

    let catalog: CampusCatalog
    let campusPath: String
    let devices: Int
    let stepSeconds: Double
    let mode: SocketSecurity.Mode
    /// How long to wait before reading region-monitor's memory (it returns freed heap every 10 s).
    var settleSeconds: Double = 21
    private var processes: [Process] = []
    private let root: URL
    private var securities: [SocketSecurity] = []

    init(catalog: CampusCatalog, campusPath: String, devices: Int, stepSeconds: Double, mode: SocketSecurity.Mode) {
        self.catalog = catalog
        self.campusPath = campusPath
        self.devices = devices
        self.stepSeconds = stepSeconds
        self.mode = mode
        root = FileManager.default.temporaryDirectory.appendingPathComponent("cafe-bench-\(getpid())-\(mode.rawValue)")
    }

    deinit { stop() }

    func stop() {
        for process in processes where process.isRunning { kill(process.processIdentifier, SIGTERM) }
        for process in processes { process.waitUntilExit() }
        processes.removeAll()
        securities.forEach { $0.close() }
        securities.removeAll()
        if ProcessInfo.processInfo.environment["CAFE_KEEP_BENCH_DATA"] == nil { try? FileManager.default.removeItem(at: root) }
    }

    /// The key folder of a deployed run: every service, the operator, and the bench's gateway.
    private func makeKeys() throws -> KeyFolder? {
        guard mode == .deployed else { return nil }
        let keys = KeyFolder(root.appendingPathComponent("keys").path)
        try keys.initialize()
        try keys.add(name: "bench-gateway", role: .gateway)
        return keys
    }

    private func security(_ keys: KeyFolder?, as name: String) throws -> SocketSecurity {
        let logger = Logger(service: "load-test", instance: "bench", minimum: .warning)
        let security: SocketSecurity = if let keys { try .deployed(folder: keys, as: name, serving: nil, logger: logger) } else { .plain(logger: logger) }
        securities.append(security)
        return security
    }

    /// CPU seconds the platform's processes have used so far.
    private func platformCPU() -> Double? {
        var total = 0.0
        for process in processes {
            guard let seconds = Bench.cpuSeconds(pid: process.processIdentifier) else { return nil }
            total += seconds
        }
        return total
    }

    /// Runs the rate steps, then times sighting → region event at `latencyRate` (the issue states
    /// its latency target at half the 100,000/s throughput target).
    func run(rates: [Double], latencyRate: Double) throws -> Result {
        let bin = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let keys = try makeKeys()
        let secured = keys.map { ["--security", "deployed", "--keys", $0.path] } ?? []
        // Every port its own, the fix channel's too: the bench may run beside a platform on the defaults.
        let ports = try LoopbackPorts.free(6)
        let fixes = "tcp://127.0.0.1:\(ports[5])"
        let xsub = "tcp://127.0.0.1:\(ports[0])", xpub = "tcp://127.0.0.1:\(ports[1])"
        let ingestEndpoint = "tcp://127.0.0.1:\(ports[3])", regionEndpoint = "tcp://127.0.0.1:\(ports[4])"
        let data = root.appendingPathComponent("data").path
        try spawn(bin, "bus", ["--xsub", xsub, "--xpub", xpub, "--listen", "tcp://127.0.0.1:\(ports[2])"] + secured)
        try spawn(bin, "beacon-ingest", ["--listen", ingestEndpoint, "--bus-pub", xsub, "--bus-sub", xpub, "--data-dir", data, "--log-level", "warning",
                                         "--fix-endpoints", fixes] + secured)
        let regionArguments = ["--listen", regionEndpoint, "--bus-pub", xsub, "--bus-sub", xpub, "--data-dir", data,
                               "--campus", campusPath, "--log-level", "warning", "--beacon-exit-seconds", "600", "--fix-listen", fixes] + secured
        try spawn(bin, "region-monitor", regionArguments)
        let context = try Context()
        let gateway = try security(keys, as: "bench-gateway"), observer = try security(keys, as: KeyFolder.defaultOperator)
        let ingest = try gateway.requestClient(context: context, peer: ingestEndpoint, defaultServer: "beacon-ingest", timeoutMilliseconds: 30_000)
        let region = try observer.requestClient(context: context, peer: regionEndpoint, defaultServer: "region-monitor", timeoutMilliseconds: 5_000)
        let ingestHealth = try observer.requestClient(context: context, peer: ingestEndpoint, defaultServer: "beacon-ingest", timeoutMilliseconds: 5_000)
        defer { ingest.close(); region.close(); ingestHealth.close() }
        for client in [ingestHealth, region] {
            let deadline = Bench.now() + 15
            while (try? client.call(Op.health, Empty(), as: HealthStatus.self)) == nil {
                guard Bench.now() < deadline else { throw ServiceError(.internalError, "the benchmark's platform did not start; see \(root.path)") }
                usleep(100_000)
            }
        }
        let regionPID = processes[2].processIdentifier
        let baseline = Bench.residentBytes(pid: regionPID) ?? 0

        // Every device reports its authorization once (durable writes, not timed), then ranges.
        let ids = (0..<devices).map { "bench-\($0)" }
        for chunk in stride(from: 0, to: devices, by: 1_000) {
            let reports = ids[chunk..<min(chunk + 1_000, devices)].map {
                IngestReport(deviceId: $0, status: DeviceStatusReport(authorization: .always, foreground: false))
            }
            _ = try ingest.call(Op.ingestBatch, IngestBatch(reports: Array(reports)), as: IngestBatchResult.self)
        }
        // region-monitor applies the statuses as they come, behind beacon-ingest: the first pass's
        // CPU must not include the ones still waiting (once beacon-ingest wrote a status in a third
        // of the time, they were 6 µs of a "first-seen device").
        try waitApplied(region, atLeast: devices)
        let driver = try Driver(context: context, ingest: ingestEndpoint, busSub: xpub, catalog: catalog, ids: ids, gateway: gateway, observer: observer)
        defer { driver.close() }
        // One pass over every device so region-monitor tracks them all, then measure its memory.
        // Its CPU over that pass, per device, is what a first-seen device costs (with its 4 sightings).
        let regionCPUBefore = Bench.cpuSeconds(pid: regionPID)
        _ = try driver.drive(rate: 50_000, seconds: Double(devices * Driver.sightingsPerReport) / 50_000, freshPerSecond: 0)
        try waitConsumed(region, atLeast: driver.totalAccepted, reading: driver)
        let populateCPU = Bench.cpuSeconds(pid: regionPID).flatMap { after in regionCPUBefore.map { after - $0 } }
        // region-monitor returns freed heap every 10 s: measure what it holds, not what it buffered.
        // The pass's nearest answers end 10 s after each device's last near sighting, and their
        // 10⁵ clearings, published within a few seconds since the timer takes what is due, sit
        // in buffers for a while: read after they ended and a trim ran (11 s read them at 299–653 B).
        try driver.idle(seconds: settleSeconds)
        let populated = Bench.residentBytes(pid: regionPID)
        // Divided by what region-monitor says it tracks, not by what was sent.
        let tracked = Int(try region.call(Op.health, Empty(), as: HealthStatus.self).details["devices.tracked"] ?? "") ?? 0

        var steps: [Step] = []
        for rate in rates {
            let before = try consumed(region)
            let cpuBefore = platformCPU()
            let outcome = try driver.drive(rate: rate, seconds: stepSeconds, freshPerSecond: 0)
            let after = try waitConsumed(region, atLeast: before + outcome.accepted, reading: driver)
            let cpu = platformCPU().flatMap { end in cpuBefore.map { end - $0 } }
            let step = Step(target: rate, achieved: outcome.achieved, accepted: outcome.accepted, consumed: after - before,
                            cpuMicrosPerSighting: cpu.map { $0 / Double(max(after - before, 1)) * 1e6 })
            steps.append(step)
            if !step.holds { break }
        }
        let sustained = steps.filter(\.holds).map(\.target).max() ?? 0
        driver.reportsPerBatch = 25
        let (warm, latencies, rawChain) = try steadyLatencies(driver, rate: latencyRate)
        let wave = try staleWave(driver, rate: latencyRate, region: region)
        let restart = try restartRegion(bin: bin, arguments: regionArguments, client: region)
        let held = steps.filter(\.holds)
        let heldCPU = held.compactMap { step in step.cpuMicrosPerSighting.map { $0 * Double(step.consumed) } }
        var marginal: Double?
        if let low = held.first, let high = held.last, high.consumed > low.consumed, let lowCPU = low.cpuMicrosPerSighting, let highCPU = high.cpuMicrosPerSighting {
            marginal = (highCPU * Double(high.consumed) - lowCPU * Double(low.consumed)) / Double(high.consumed - low.consumed)
        }
        return Result(mode: mode, steps: steps, sustained: sustained, latencyRate: latencyRate, latencies: latencies, warmSeconds: warm, rawChain: rawChain, wave: wave, devices: devices,
                      regionBytesPerDevice: populated.map { Double($0 - baseline) / Double(max(tracked, 1)) }, trackedDevices: tracked,
                      firstSeenMicrosPerDevice: populateCPU.map { $0 / Double(max(tracked, 1)) * 1e6 },
                      cpuMicrosPerSighting: heldCPU.count == held.count && !held.isEmpty ? heldCPU.reduce(0, +) / Double(held.map(\.consumed).reduce(0, +)) : nil,
                      marginalCPUMicrosPerSighting: marginal, restartSeconds: restart.seconds, restartTracked: restart.tracked)
    }

    /// How long the bench asks region-monitor about quiet devices not seen cleared.
    static let askSeconds = 10.0

    /// How long a device's nearest answer outlives its last sighting (region-monitor's default, which the bench runs with).
    static let staleSeconds = RegionSettings().nearestFreshness

    /// Sighting → region event at `rate` at steady state. The steps before sighted the devices at
    /// other rates, so some deadlines fall later, and their answers go stale (or are named again)
    /// in a wave that has nothing to do with the rate measured. After `staleSeconds` at this rate,
    /// and one round of every device, all of that is over: only then are latencies timed.
    /// The raw chain of a sighting's hand-offs walks beside it over the same seconds (its raw figure).
    private func steadyLatencies(_ driver: Driver, rate: Double) throws -> (warm: Double, latencies: [Double], rawChain: LatencySummary?) {
        let round = Double(devices * Driver.sightingsPerReport) / rate
        let warm = max(Self.staleSeconds, round) + 2
        let raw = try? RawChainProbe(orderRate: 0, sightingRate: 100, measureFrom: warm, end: warm + stepSeconds)
        raw?.begin(at: Reactor.monotonic())
        let latencies = try driver.drive(rate: rate, seconds: warm + stepSeconds, freshPerSecond: 200, measureFrom: warm).latencies
        let chain = raw.map { LatencySummary($0.finish().sighting.total) }
        return (warm, latencies, chain.flatMap { $0.count > 0 ? $0 : nil })
    }

    /// The wave on its own: at `rate`, the half of the devices sighted longest ago keeps being
    /// sighted, and the half sighted last goes quiet. Their answers are due to end `staleSeconds`
    /// after their last sighting, spread as those were (half a round), as the first pass's devices
    /// do after it. Each clearing seen is set against its device's due time; the devices not seen
    /// cleared are then asked about (`nearest.get`): one still named was not cleared at all.
    private func staleWave(_ driver: Driver, rate: Double, region: RequestClient) throws -> StaleWave {
        let quiet = devices / 2
        let kept = Driver.Cycle(start: driver.position, count: devices - quiet)
        let quietDevices = (0..<quiet).map { (kept.start + kept.count + $0) % devices }
        var account = StaleWaveAccount(freshness: Self.staleSeconds, quiet: quietDevices.map { ($0, driver.lastSighted($0)) })
        let spread = Double(quiet * Driver.sightingsPerReport) / rate
        let outcome = try driver.drive(rate: rate, seconds: Self.staleSeconds + spread + stepSeconds, freshPerSecond: 200, cycle: kept)
        for answer in outcome.quietAnswers { account.answer(device: answer.device, cleared: answer.cleared, at: answer.at) }
        // One request each, for at most `askSeconds`, spread over them: enough to tell "never
        // cleared" from "none to clear" without a minute of requests when none was cleared.
        let askedAt = Bench.now(), unseen = account.unseen
        let stride = max(1, unseen.count / 997)
        var stillNamed = 0, asked = 0
        ask: for offset in 0..<stride {
            for index in Swift.stride(from: offset, to: unseen.count, by: stride) {
                guard let named = try isNamed("bench-\(unseen[index])", region: region, until: askedAt + Self.askSeconds) else { break ask }
                if named { stillNamed += 1 }
                asked += 1
            }
        }
        return account.figures(stillNamed: stillNamed, asked: asked, askedAt: askedAt, probes: outcome.probes.map { (outcome.start + $0.due, $0.ms) })
    }

    /// Whether region-monitor names a café for `deviceId` (`nearest.get`); nil once `deadline`
    /// passed. Over the caller's request budget (the operator's, deployed) it waits as told.
    private func isNamed(_ deviceId: String, region: RequestClient, until deadline: Double) throws -> Bool? {
        while Bench.now() < deadline {
            do {
                return try region.call(Op.nearestGet, DeviceQuery(deviceId: deviceId), as: NearestAnswer.self).beacon != nil
            } catch let error as ServiceError where error.code == ErrorCode.rateLimited.rawValue {
                let wait = error.details?["retryAfterMs"].flatMap { Int($0) } ?? 10
                usleep(UInt32(min(max(wait, 1), 1_000)) * 1_000)
            }
        }
        return nil
    }

    /// Stops region-monitor (SIGTERM), starts it again on the same data and times it from the
    /// start to its first health answer (nil when none came within 60 s).
    private func restartRegion(bin: URL, arguments: [String], client: RequestClient) throws -> (seconds: Double?, tracked: Int) {
        let old = processes[2]
        kill(old.processIdentifier, SIGTERM)
        old.waitUntilExit()
        let started = Bench.now()
        processes[2] = try Bench.spawn(bin, "region-monitor", arguments, logsIn: root)
        client.reset()
        while Bench.now() - started < 60 {
            if let status = try? client.call(Op.health, Empty(), as: HealthStatus.self) {
                return (Bench.now() - started, Int(status.details["devices.tracked"] ?? "") ?? 0)
            }
            client.reset()
            usleep(20_000)
        }
        return (nil, 0)
    }

    private func consumed(_ region: RequestClient) throws -> Int {
        Int(try region.call(Op.health, Empty(), as: HealthStatus.self).details["sightings.consumed"] ?? "") ?? 0
    }

    /// Waits (up to 3 s of no progress) for region-monitor to have applied `atLeast` durable events.
    private func waitApplied(_ region: RequestClient, atLeast target: Int) throws {
        try waitFor(atLeast: target, pause: { usleep(20_000) }) {
            Int(try region.call(Op.health, Empty(), as: HealthStatus.self).details["events.applied"] ?? "") ?? 0
        }
    }

    /// Waits (up to 3 s of no progress) for region-monitor to consume `atLeast` sightings; returns
    /// its count. The driver reads the bus meanwhile: region-monitor may lag a first pass by
    /// seconds, publishing all along, and a subscriber that reads nothing for 5 s is cut.
    @discardableResult
    private func waitConsumed(_ region: RequestClient, atLeast target: Int, reading driver: Driver) throws -> Int {
        try waitFor(atLeast: target, pause: { try driver.idle(seconds: 0.05) }) { try consumed(region) }
    }

    /// Reads `count` until it reaches `target` or stops moving for 3 s, pausing between reads; its last value.
    @discardableResult
    private func waitFor(atLeast target: Int, pause: () throws -> Void, _ count: () throws -> Int) throws -> Int {
        var last = try count()
        var lastChange = Bench.now()
        while last < target && Bench.now() - lastChange < 3 {
            try pause()
            let now = try count()
            if now != last { lastChange = Bench.now() }
            last = now
        }
        return last
    }

    private func spawn(_ bin: URL, _ name: String, _ arguments: [String]) throws {
        processes.append(try Bench.spawn(bin, name, arguments, logsIn: root))
    }
}
