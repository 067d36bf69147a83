import Campus
import Foundation
import Messages
import Metrics
import ServiceRuntime
import ZeroMQ

/// The open-loop, constant-rate run: simulated phones range beacons and walk between cafés,
/// gateways forward their reports in `ingest.batch` requests on a fixed schedule, orders start
/// at a fixed rate, and every effect is awaited on the bus.
///
/// One thread: DEALER sockets pipeline the requests without waiting, and one poll covers them
/// and the SUB socket. Every send is scheduled at start + i / rate and every latency is measured
/// from that schedule, so a sender or a platform that falls behind shows up in the figures
/// instead of slowing the offered load (no coordinated omission).
final class LoadRunner {
    /// What an ingest reply answers.
    enum IngestStep {
        case status(reports: Int)
        case batch(BatchInFlight)
    }

    struct BatchInFlight {
        var number: Int
        var intended: Double
        var sightings: Int
        var arrivals: [(arrival: Arrival, report: Int)]
        var inWindow: Bool
    }

    /// The sums behind the sightings section of the report.
    private struct SightingCounts {
        var sent = 0
        var sentInWindow = 0
        var accepted = 0
        var acceptedInWindow = 0
        var refused = 0
        var unanswered = 0
        var batches = 0
        var batchErrors: [String: Int] = [:]
        var refusals: [String: Int] = [:]
        var lastSend = 0.0
        var lastAccept = 0.0
        var maxLag = 0.0
        /// Each measured batch's lag behind its schedule when it went out, in microseconds: what
        /// the generator itself added to every latency measured from the schedule.
        var lag = Histogram()
    }

    let settings: RunSettings
    /// load-test's threads' priority, raised before they were made (`RunCommand`); nil: left as started.
    var priority: GeneratorPriority?
    let catalog: CampusCatalog
    let context: Context
    let runID: String
    let security: LoadSecurity
    private let log: (String) -> Void

    init(settings: RunSettings, catalog: CampusCatalog, context: Context, runID: String, security: LoadSecurity, log: @escaping (String) -> Void) {
        self.settings = settings
        self.catalog = catalog
        self.context = context
        self.runID = runID
        self.security = security
        self.log = log
    }

    /// The gateway key a deployed run sends sightings with.
    var gatewayKey: String { "\(runID)-gateway" }

    func run() throws -> RunReport {
        let layout = CampusLayout(catalog: catalog)
        guard !layout.places.isEmpty else { throw ServiceError(.internalError, "the campus has no café with a station") }
        let shards = settings.ingest.count
        let fleet = PhoneFleet(count: settings.devices, runID: runID, shards: shards, layout: layout, exitTimeout: settings.beaconExitSeconds,
                               dwellMean: settings.dwell, seed: settings.seed)
        let placeIndex = Dictionary(uniqueKeysWithValues: layout.places.enumerated().map { ($1.id, $0) })
        let phonePrefix = "\(runID)-p"

        let sub = try Socket(context, .sub)
        defer { sub.close() }
        try sub.setLinger(milliseconds: 0)
        // Nothing may be dropped on our side, or the run would report the platform's loss wrongly.
        try sub.setReceiveHighWaterMark(0)
        for prefix in ["region.event.", "notify.delivery.", "kitchen.paced.", "heartbeat."] { try sub.subscribe(prefix) }
        try security.connectToBus(sub, peer: settings.busSub)
        var orderingPhones = settings.orderRate > 0 ? min(settings.devices, max(1, Int((settings.orderRate * (settings.warmup + settings.duration)).rounded(.up)))) : 0
        if security.isDeployed { orderingPhones = min(orderingPhones, OrderClients.deployedPhoneLimit) }
        // Deployed mode: the run's own gateway, phone and kitchen keys, gone again when it ends.
        try security.mint([LoadSecurity.Mint(name: gatewayKey, role: .gateway)] + OrderClients.keys(runID: runID, phones: orderingPhones, fleet: fleet, catalog: catalog))
        defer { security.revokeMinted() }
        // Deployed mode: Ctrl-C or SIGTERM ends the run early, so its keys are still revoked.
        let interrupted = ShutdownSignal()
        if security.isDeployed { interrupted.installHandlers(logger: Logger(service: "load-test", instance: runID, minimum: .warning)) }
        try awaitMintedKeys(phones: orderingPhones, fleet: fleet)
        let ingest: [PipelinedClient<IngestStep>] = try settings.ingest.enumerated().map {
            try security.pipelined("beacon-ingest s\($0)", context: context, peer: $1, defaultServer: "beacon-ingest", as: security.isDeployed ? gatewayKey : nil)
        }
        // Order requests are sent again, unchanged, when a reply does not come (a service killed
        // with them in flight), as a real client retries with the same idempotency key.
        let orderClients = try OrderClients(settings: settings, security: security, context: context, runID: runID, phones: orderingPhones, catalog: catalog)
        // The bus counters, read four times a second and carried across service restarts.
        // With the CPU the pipeline's processes report, so CPU per sighting comes from the same run.
        let sampler = try HealthSampler(context: context, security: security, watch: [
            .init("published.bestEffort", settings.ingest, server: "beacon-ingest"), .init("sightings.consumed", settings.region, server: "region-monitor"),
            .init("process.cpuMicros", as: "cpu.beacon-ingest", settings.ingest, server: "beacon-ingest"),
            .init("process.cpuMicros", as: "cpu.region-monitor", settings.region, server: "region-monitor"),
            .init("process.cpuMicros", as: "cpu.bus", [settings.bus], server: "bus", required: false),
        ])
        defer {
            ingest.forEach { $0.close() }
            orderClients.close()
            sampler.close()
        }

        // Set-up, before the clock starts: every phone reports its status, ordering phones
        // register for notifications, the pickup windows are read, the subscription is live.
        try sendStatuses(fleet: fleet, ingest: ingest)
        try register(phones: orderingPhones, fleet: fleet)
        let windows = settings.orderRate > 0 ? try pickupWindows() : [:]
        try awaitSubscription(sub)
        try sub.unsubscribe("heartbeat.")
        try sampler.readAll(timeout: max(3, settings.timeout))
        let publishedBefore = sampler.counter("published.bestEffort")?.total
        let consumedBefore = sampler.counter("sightings.consumed")?.total
        let cpuBefore = LoadRunner.pipelineCPU(sampler)

        let measureFrom = settings.warmup
        let end = settings.warmup + settings.duration
        // The raw figure of the same run: the hops alone, walked beside the platform's.
        let raw = settings.rawRate > 0 ? try RawChainProbe(orderRate: settings.orderRate, sightingRate: settings.rawRate, measureFrom: measureFrom, end: end,
                                                              nice: priority?.started) : nil
        defer { raw?.finish() }
        let wallStart = Date().addingTimeInterval(0.05)
        let wallStartSeconds = wallStart.timeIntervalSince1970
        let start = Reactor.monotonic() + 0.05
        raw?.begin(at: start)
        let schedule = SightingSchedule(fleet: fleet, rate: settings.rate, batchSize: settings.batch, shards: shards, end: end, uuid: layout.uuid,
                                        wallStartMilliseconds: Timestamp(wallStart).milliseconds)
        let arrivals = ArrivalTracker(measureFrom: measureFrom, timeout: settings.timeout)
        let orders = OrderDriver(rate: settings.orderRate, end: end, measureFrom: measureFrom, timeout: settings.timeout, runID: runID, fleet: fleet,
                                 orderingPhones: orderingPhones, clients: orderClients, windows: windows, catalog: catalog)
        var counts = SightingCounts()
        var roundTrip = Histogram()
        var sentMeter = RateMeter(start: 0)
        var acceptedMeter = RateMeter(start: 0)
        var scheduledInWindow = 0

        var poller = Poller()
        poller.register(sub)
        for client in ingest { poller.register(client.socket) }
        let orderSockets = orderClients.all
        for client in orderSockets { poller.register(client.socket) }
        let samplerBase = 1 + ingest.count + orderSockets.count
        for socket in sampler.sockets { poller.register(socket) }
        // zmq_poll's timeout is whole milliseconds, rounded up: without this timer each batch went
        // out up to a millisecond after its time (lag p50 0.66 ms at 10,000/s), and that lag is
        // part of every latency measured from the schedule.
        let wakeTimer = try WakeTimer()
        let wakeIndex = poller.register(fileDescriptor: wakeTimer.fileDescriptor)

        func sent(_ batch: BatchInFlight, now: Double) {
            counts.sent += batch.sightings
            counts.batches += 1
            sentMeter.add(UInt64(batch.sightings))
            counts.maxLag = max(counts.maxLag, now - batch.intended)
            if batch.inWindow {
                counts.lag.record(UInt64(max(0, now - batch.intended) * 1_000_000))
                counts.sentInWindow += batch.sightings
                counts.lastSend = now
            }
        }

        func handleIngest(_ step: IngestStep, reply: Data, rtt: Double, now: Double) {
            guard case .batch(let batch) = step else { return }
            roundTrip.record(UInt64(rtt * 1_000_000))
            guard let head = BatchReplyHead.fast(reply) ?? (try? JSONDecoder().decode(BatchReplyHead.self, from: reply)) else {
                counts.batchErrors[ErrorCode.messageMalformed.rawValue, default: 0] += 1
                counts.refused += batch.sightings
                return
            }
            guard head.ok, let body = head.body else {
                counts.batchErrors[head.error?.code ?? ErrorCode.internalError.rawValue, default: 0] += 1
                counts.refused += batch.sightings
                for item in batch.arrivals { arrivals.cancel(item.arrival, intended: batch.intended) }
                return
            }
            counts.accepted += body.accepted
            acceptedMeter.add(UInt64(body.accepted))
            if batch.inWindow {
                counts.acceptedInWindow += body.accepted
                counts.lastAccept = now
            }
            guard body.accepted < batch.sightings else { return }
            counts.refused += batch.sightings - body.accepted
            // The slow path, only when something was refused: which reports, and why.
            guard let full = try? Wire.decodeReply(reply, body: IngestBatchResult.self).get() else { return }
            var refusedReports = Set<Int>()
            for (index, item) in full.results.enumerated() {
                if let error = item.error {
                    counts.refusals[error.code, default: 0] += 1
                    refusedReports.insert(index)
                }
                for rejection in item.rejections {
                    counts.refusals[rejection.code, default: 0] += 1
                    refusedReports.insert(index)
                }
            }
            for item in batch.arrivals where refusedReports.contains(item.report) { arrivals.cancel(item.arrival, intended: batch.intended) }
        }

        func drainBus(now: Double) throws {
            for _ in 0..<20_000 {
                guard let frames = try sub.tryReceiveMultipart(), frames.count == 2 else { return }
                if frames[0].starts(with: Array("region.event.".utf8)) {
                    // The platform's own reader (Foundation's decoder took this loop 20–50 µs an
                    // event, its time added to every latency behind it in the queue).
                    guard let envelope = try? Wire.decodeEnvelope(frames[1]), case .region(let event) = envelope.body, event.state == .satisfied,
                          event.deviceId.hasPrefix(phonePrefix), let device = Int(event.deviceId.dropFirst(phonePrefix.count)),
                          let place = placeIndex[event.identifier]
                    else { continue }
                    // When region-monitor published it, on the schedule's clock: its envelope's
                    // time, to the millisecond (the middle of that millisecond is taken).
                    let published = Double(envelope.time.milliseconds) / 1000 + 0.0005 - wallStartSeconds
                    arrivals.satisfied(device: device, place: place, now: now, published: published)
                } else if frames[0].starts(with: Array("notify.delivery.".utf8)) {
                    guard let note = try? JSONDecoder().decode(NotificationHead.self, from: frames[1]), let orderId = note.body.orderId,
                          let kind = NotificationKind(rawValue: note.body.kind)
                    else { continue }
                    orders.notified(orderId: orderId, kind: kind, now: now)
                } else if frames[0].starts(with: Array("kitchen.paced.".utf8)) {
                    // The kitchen's screen has the order's tickets: bump them now.
                    guard let paced = try? JSONDecoder().decode(KitchenPacedHead.self, from: frames[1]) else { continue }
                    try orders.kitchenShows(orderId: paced.body.orderId, now: now)
                }
            }
        }

        var nextProgress = 1.0
        var generatedTo = 0.0
        log("load-test: run \(runID): \(settings.devices) phones, \(shards) ingest shard(s), \(orderingPhones) ordering phones; "
            + "\(settings.warmup > 0 ? "warm-up \(settings.warmup) s, then " : "")\(settings.duration) s at \(settings.rate) sightings/s")
        while true {
            var now = Reactor.monotonic() - start
            // Generate ahead of the clock, so the loop sleeps until the next batch is due, but in
            // slices of 10 ms of schedule, one per turn: a slice takes well under a millisecond,
            // where the 150 ms it used to generate at once (7,500 sightings at 50,000/s) held due
            // batches back by up to 24 ms.
            if !schedule.isFinished && generatedTo < now + 0.1 {
                generatedTo += 0.01
                schedule.generate(upTo: generatedTo)
                now = Reactor.monotonic() - start
            }
            while let plan = schedule.popDue(now: now) {
                let batch = BatchInFlight(number: plan.number, intended: plan.intended, sightings: plan.sightings, arrivals: plan.arrivals,
                                          inWindow: plan.intended >= measureFrom)
                if batch.inWindow { scheduledInWindow += plan.sightings }
                for item in plan.arrivals { arrivals.expect(item.arrival, intended: plan.intended) }
                if try ingest[plan.shard].send(plan.frame, context: .batch(batch), now: now) { sent(batch, now: now) }
            }
            for client in ingest where client.hasQueued {
                for case .batch(let batch) in try client.flushQueue(now: now) { sent(batch, now: now) }
            }
            try orders.startDue(now: now)
            for client in orderSockets {
                try client.flushQueue(now: now)
                for step in try client.retry(now: now, after: settings.retrySeconds) { orders.resent(step) }
            }
            try sampler.askDue()
            if interrupted.isRequested {
                log("load-test: interrupted; reporting what was measured and revoking the run's keys")
                break
            }

            let generating = !schedule.isFinished || schedule.nextDue != nil || orders.nextDue != nil
            if !generating {
                // Uncertain arrivals may never fire; only what is owed keeps the drain going.
                let quiet = ingest.allSatisfy { $0.pendingCount == 0 } && arrivals.outstandingCertain == 0 && orders.inFlight == 0
                if quiet || now > end + settings.timeout + 1 { break }
            }

            var wake = nextProgress
            if let due = schedule.nextDue { wake = min(wake, due) }
            if !schedule.isFinished { wake = min(wake, generatedTo - 0.1) }
            if let due = orders.nextDue { wake = min(wake, due) }
            if let due = orders.nextRetry { wake = min(wake, due) }
            for due in orderSockets.compactMap({ $0.nextRetry(after: settings.retrySeconds) }) { wake = min(wake, due) }
            if let due = sampler.nextDue { wake = min(wake, due - start) }
            if ingest.contains(where: \.hasQueued) || orderSockets.contains(where: \.hasQueued) { wake = min(wake, now + 0.001) }
            let waitMilliseconds = max(0, min(100, Int(((wake - now) * 1000).rounded(.up))))
            if waitMilliseconds > 0 && wake - now < 0.1 { wakeTimer.arm(atMonotonic: start + wake) }
            let ready = try poller.poll(timeoutMilliseconds: waitMilliseconds)
            let after = Reactor.monotonic() - start
            for index in ready {
                if index == 0 {
                    try drainBus(now: after)
                } else if index <= ingest.count {
                    try ingest[index - 1].receive(now: after) { step, reply, rtt in handleIngest(step, reply: reply, rtt: rtt, now: after) }
                } else if index == wakeIndex {
                    wakeTimer.clear()
                } else if index < samplerBase {
                    try orderSockets[index - 1 - ingest.count].receive(now: after) { step, reply, _ in try orders.handle(step, reply: reply, now: after) }
                } else {
                    try sampler.receive(index - samplerBase)
                }
            }
            if after >= nextProgress {
                nextProgress += 1
                for client in ingest {
                    for case .batch(let batch) in client.expire(now: after, timeout: settings.timeout) { counts.unanswered += batch.sightings }
                }
                for step in orderSockets.flatMap({ $0.expire(now: after, timeout: settings.timeout) }) { orders.gaveUp(step) }
                arrivals.expire(now: after)
                orders.expire(now: after)
                let lost = arrivals.counts.lost + orders.counts.lost + orders.counts.failed + counts.refused + counts.unanswered
                log(String(format: "[%6.1f s] sent %6.0f/s  accepted %6.0f/s  region p99 %7.1f ms (n=%llu)  order p99 %7.1f ms (n=%llu)  lost %d  lag p99 %.2f max %.1f ms",
                           after, sentMeter.intervalRate(now: after), acceptedMeter.intervalRate(now: after),
                           Double(arrivals.latency.value(atPercentile: 99)) / 1000, arrivals.latency.count,
                           Double(orders.latency.value(atPercentile: 99)) / 1000, orders.latency.count, lost,
                           Double(counts.lag.value(atPercentile: 99)) / 1000, max(0, counts.maxLag * 1000)))
            }
        }
        let finished = Reactor.monotonic() - start
        let rawChains = raw.map { RunReport.RawChains($0.finish()) }
        for client in ingest {
            for case .batch(let batch) in client.expire(now: .infinity, timeout: 0) { counts.unanswered += batch.sightings }
            counts.batchErrors.merge(client.lateReplies > 0 ? ["late replies": client.lateReplies] : [:]) { $0 + $1 }
        }
        arrivals.expireAll()
        orders.expireAll()

        let bus = try busCounts(sampler, publishedBefore: publishedBefore, consumedBefore: consumedBefore)
        let cpu = RunReport.CPU(before: cpuBefore, after: LoadRunner.pipelineCPU(sampler), sightings: bus.consumedByRegionMonitor)

        let sendSpan = max(counts.lastSend - measureFrom, 0.001)
        let acceptSpan = max(counts.lastAccept - measureFrom, 0.001)
        let acceptedPerSecond = Double(counts.acceptedInWindow) / acceptSpan
        let sightings = RunReport.Sightings(
            target: settings.rate, scheduled: scheduledInWindow, sent: counts.sent, accepted: counts.accepted, refused: counts.refused,
            unanswered: counts.unanswered, sentPerSecond: Double(counts.sentInWindow) / sendSpan, acceptedPerSecond: acceptedPerSecond,
            achievedRatio: settings.rate > 0 ? acceptedPerSecond / settings.rate : 0, batches: counts.batches, batchErrors: counts.batchErrors,
            refusals: counts.refusals, maxSendLagMs: max(0, counts.maxLag * 1000), sendLagMs: LatencySummary(counts.lag), sendStalls: ingest.reduce(0) { $0 + $1.stalls },
            batchRoundTripMs: LatencySummary(roundTrip))
        let a = arrivals.counts
        let regionEvents = RunReport.RegionEvents(expected: a.expected, seen: a.seen, lost: a.lost, late: a.late, uncertain: a.uncertain, uncertainSeen: a.uncertainSeen,
                                                  unexpected: a.unexpected, cancelled: a.cancelled, latencyMs: LatencySummary(arrivals.latency),
                                                  toPublishedMs: LatencySummary(arrivals.toPublished), fromPublishedMs: LatencySummary(arrivals.fromPublished))
        let o = orders.counts
        let orderReport = RunReport.Orders(targetPerSecond: settings.orderRate, started: o.started, placed: o.placed, notified: o.notified, failed: o.failed,
                                           lost: o.lost, errors: o.errors, lostAt: o.lostAt, bumpRetries: o.bumpRetries, kitchenWaitsExpired: o.kitchenWaitsExpired, windowRetries: o.windowRetries,
                                           resent: o.resent.values.reduce(0, +), resentByOp: o.resent, latencyMs: LatencySummary(orders.latency),
                                           stagesMs: ["reserve": LatencySummary(orders.stages.reserve), "place": LatencySummary(orders.stages.place),
                                                      "kitchen": LatencySummary(orders.stages.kitchen), "ready": LatencySummary(orders.stages.ready)])
        return RunReport(
            settings: .init(runId: runID, rate: settings.rate, duration: settings.duration, warmup: settings.warmup, devices: settings.devices,
                            batch: settings.batch, orderRate: settings.orderRate, ingestShards: shards, beaconExitSeconds: settings.beaconExitSeconds,
                            timeout: settings.timeout, retrySeconds: settings.retrySeconds, seed: settings.seed),
            sightings: sightings, regionEvents: regionEvents, orders: orderReport, bus: bus, cpu: cpu, rawChains: rawChains, generatorPriority: priority,
            lost: a.lost + o.lost + o.failed + counts.refused + counts.unanswered + bus.shed,
            elapsedSeconds: finished)
    }
}
