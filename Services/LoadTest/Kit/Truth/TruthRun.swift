import Campus
import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// `load-test truth` played in real time against a platform of its own (bus, beacon-ingest and
/// region-monitor, plain mode, free loopback ports, a fresh data folder, the campus catalog):
/// every `step` seconds each phone reports what it heard through `ingest.batch` (its status
/// first, as a phone must), a GPS fix every 5 s, and asks `nearest.get`; `region.nearest.` and
/// `region.event.` are tailed on the bus. Times are on the run's clock, seconds.
final class TruthRun {
    struct Settings {
        var phones: Int
        var duration: Double
        var exitSeconds: Double
        var seed: UInt64
        /// Every beacon's calibrated RSSI at 1 m, dBm.
        var measuredPower: Int
        var noise: RadioNoise
        var gps: GPSNoise
        var campus: String
        var step = 1.0
        var fixEvery = 5.0
    }

    /// What the run gives the report: each phone's scenario, what was heard and what was observed.
    struct Outcome {
        var scenarios: [TruthScenario]
        var observations: [PhoneObservation]
        /// Per phone and café: the run times of the first and last advertisement actually reported.
        var firstHeard: [[String: Double]]
        var lastHeard: [[String: Double]]
        /// Per phone: every advertisement it reported, for the evidence figure.
        var readings: [[Reading]]
        var end: Double
        var reportsSent: Int
        var sightingsSent: Int
        var requestFailures: Int
    }

    let settings: Settings
    let root: URL
    private var processes: [Process] = []
    private var start = Bench.now()

    init(settings: Settings) {
        self.settings = settings
        root = FileManager.default.temporaryDirectory.appendingPathComponent("cafe-truth-\(getpid())")
    }

    private var clock: Double { Bench.now() - start }

    func stop() {
        for process in processes where process.isRunning { process.terminate() }
        for process in processes { process.waitUntilExit() }
        if ProcessInfo.processInfo.environment["CAFE_KEEP_BENCH_DATA"] == nil { try? FileManager.default.removeItem(at: root) }
    }

    func run(progress: (String) -> Void) throws -> Outcome {
        let bin = Bench.binaryDirectory
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let catalog = try CampusCatalog.load(path: settings.campus)
        guard let home = catalog.cafes.first(where: { $0.id == "caffe-macs" }) else {
            throw ServiceError(.internalError, "\(settings.campus) has no caffe-macs: the truth floor plan is Caffè Macs and its coffee station")
        }
        let ports = try LoopbackPorts.free(6)
        func endpoint(_ i: Int) -> String { "tcp://127.0.0.1:\(ports[i])" }
        let (xsub, xpub, fixes) = (endpoint(0), endpoint(1), endpoint(5))
        let common = ["--bus-pub", xsub, "--bus-sub", xpub, "--data-dir", root.appendingPathComponent("data").path, "--log-level", "warning"]
        try spawn(bin, "bus", ["--xsub", xsub, "--xpub", xpub, "--listen", endpoint(2)])
        try spawn(bin, "beacon-ingest", ["--listen", endpoint(3), "--fix-endpoints", fixes] + common)
        try spawn(bin, "region-monitor", ["--listen", endpoint(4), "--campus", settings.campus, "--fix-listen", fixes,
                                          "--beacon-exit-seconds", String(settings.exitSeconds)] + common)

        let context = try Context()
        let ingest = RequestClient(context: context, endpoint: endpoint(3), timeoutMilliseconds: 5_000)
        let region = RequestClient(context: context, endpoint: endpoint(4), timeoutMilliseconds: 5_000)
        defer { [ingest, region].forEach { $0.close() } }
        try Bench.awaitHealthy([(ingest, "beacon-ingest"), (region, "region-monitor")], logsIn: root)
        let sub = try Socket(context, .sub)
        defer { sub.close() }
        try sub.setLinger(milliseconds: 0)
        for prefix in [Topic.regionNearest, "region.event.", "heartbeat."] { try sub.subscribe(prefix) }
        try sub.connect(xpub)
        let heartbeatDeadline = clock + 10
        while clock < heartbeatDeadline {
            if let frames = try sub.receiveMultipart(timeoutMilliseconds: 100), frames.first?.starts(with: Array("heartbeat.".utf8)) == true { break }
        }
        try sub.unsubscribe("heartbeat.")

        var random = SeededRandom(seed: settings.seed)
        let kinds = TruthScenario.mix(phones: settings.phones)
        let scenarios = kinds.enumerated().map { TruthScenario(kind: $1, index: $0, duration: settings.duration, exit: settings.exitSeconds, random: &random) }
        var links = scenarios.map { s in s.beacons.map { _ in RadioLink(noise: settings.noise, random: &random) } }
        let ids = scenarios.indices.map { "truth\(settings.seed)-p\($0)" }
        let index = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        var outcome = Outcome(scenarios: scenarios, observations: Array(repeating: PhoneObservation(), count: scenarios.count),
                              firstHeard: Array(repeating: [:], count: scenarios.count), lastHeard: Array(repeating: [:], count: scenarios.count),
                              readings: Array(repeating: [], count: scenarios.count), end: settings.duration, reportsSent: 0, sightingsSent: 0, requestFailures: 0)

        // Authorization first, as a phone reports it.
        for chunk in stride(from: 0, to: ids.count, by: 200).map({ Array(ids[$0..<min($0 + 200, ids.count)]) }) {
            let reply = try ingest.call(Op.ingestBatch, IngestBatch(reports: chunk.map { IngestReport(deviceId: $0, status: DeviceStatusReport(authorization: .always, foreground: true)) }),
                                        as: IngestBatchResult.self)
            guard reply.accepted == chunk.count else { throw ServiceError(.internalError, "beacon-ingest refused \(chunk.count - reply.accepted) phone statuses") }
        }
        progress("\(ids.count) phones (\(Dictionary(grouping: kinds, by: { $0 }).map { "\($1.count) \($0.rawValue)" }.sorted().joined(separator: ", "))), \(Int(settings.duration)) s")

        func drain(until deadline: Double) throws {
            repeat {
                let wait = Int32(max(0, min(50, (deadline - clock) * 1000)))
                guard let frames = try sub.receiveMultipart(timeoutMilliseconds: wait), frames.count == 2,
                      let envelope = try? Wire.decodeEnvelope(frames[1]) else { continue }
                let t = clock
                switch envelope.body {
                case .nearest(let n):
                    if let phone = index[n.deviceId] {
                        let named = cafe(major: n.beacon?.major, catalog)
                        outcome.observations[phone].nearest.append((t, named))
                        let candidates = (n.candidates ?? []).compactMap { cafe(major: $0.major, catalog) }
                        outcome.observations[phone].held.append((t, named.map { [$0] } ?? candidates))
                    }
                case .region(let e):
                    if e.monitor == CampusCatalog.monitorName, let phone = index[e.deviceId] {
                        outcome.observations[phone].events.append((t, e.identifier, e.state.rawValue))
                    }
                default: break
                }
            } while clock < deadline
        }

        start = Bench.now()
        var tick = 0
        while Double(tick) * settings.step <= settings.duration {
            let t = Double(tick) * settings.step
            try drain(until: t)
            let now = Timestamp(Date())
            var reports: [IngestReport] = []
            for (p, scenario) in scenarios.enumerated() {
                var sightings: [RangingReport] = []
                for (b, beacon) in scenario.beacons.enumerated() {
                    guard let rssi = links[p][b].sample(noise: settings.noise, metres: scenario.metres(to: b, at: t), measuredPower: Double(settings.measuredPower),
                                                        step: settings.step, dipScale: scenario.dipScale, random: &random) else { continue }
                    sightings.append(RangingReport(uuid: catalog.beaconUUID, major: beacon.major, minor: beacon.minor, rssi: rssi,
                                                   measuredPower: settings.measuredPower, timestamp: now))
                    if outcome.firstHeard[p][beacon.cafe] == nil { outcome.firstHeard[p][beacon.cafe] = t }
                    outcome.lastHeard[p][beacon.cafe] = t
                    outcome.readings[p].append(Reading(t: t, beacon: b, cafe: beacon.cafe, rssi: rssi))
                }
                var fixReports: [FixReport]?
                if (Double(tick) + Double(p)).truncatingRemainder(dividingBy: settings.fixEvery / settings.step) == 0 {
                    let at = scenario.position(at: t)
                    let fix = settings.gps.fix(latitude: home.latitude, longitude: home.longitude, east: min(45, max(-45, at.x)), north: min(45, max(-45, at.y)), random: &random)
                    fixReports = [FixReport(latitude: fix.latitude, longitude: fix.longitude, horizontalAccuracy: fix.accuracy, precise: fix.precise, timestamp: now)]
                }
                guard !sightings.isEmpty || fixReports != nil else { continue }
                outcome.sightingsSent += sightings.count
                reports.append(IngestReport(deviceId: ids[p], sightings: sightings.isEmpty ? nil : sightings, fixes: fixReports))
            }
            for chunk in stride(from: 0, to: reports.count, by: 200).map({ Array(reports[$0..<min($0 + 200, reports.count)]) }) {
                if (try? ingest.call(Op.ingestBatch, IngestBatch(reports: chunk), as: IngestBatchResult.self)) == nil { outcome.requestFailures += 1 }
                outcome.reportsSent += chunk.count
            }
            for (p, id) in ids.enumerated() {
                try drain(until: clock)
                if let answer = try? region.call(Op.nearestGet, DeviceQuery(deviceId: id), as: NearestAnswer.self) {
                    outcome.observations[p].polls.append((clock, answer.cafeId))
                } else {
                    outcome.requestFailures += 1
                }
            }
            if tick % 30 == 0, tick > 0 { progress("\(tick) s") }
            tick += 1
        }
        // Events still on the way after the last report.
        try drain(until: clock + 1)
        outcome.end = settings.duration
        return outcome
    }

    private func cafe(major: Int?, _ catalog: CampusCatalog) -> String? {
        major.flatMap { m in catalog.cafes.first { $0.beaconMajor == m }?.id }
    }

    private func spawn(_ bin: URL, _ name: String, _ arguments: [String]) throws {
        processes.append(try Bench.spawn(bin, name, arguments, logsIn: root))
    }
}
