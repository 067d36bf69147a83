import BeaconIngestCore
import Foundation
import Messages
import ServiceRuntime

/// The shell around `IngestEngine`: device status in SQLite (`IngestStore`), batches on the
/// request socket, status changes through the outbox (durable), sightings straight to the bus, and
/// fixes over a direct channel to region-monitor (`FixChannel`).
public final class IngestService {
    let clock: any WallClock
    let logger: Logger
    let reactor: Reactor
    let requests: RequestServer
    let router: RequestRouter
    let heartbeat: HeartbeatPublisher
    let events: EventWriter
    let engine: IngestEngine
    let store: IngestStore
    let ownership: ShardOwnership
    let fixes: FixChannel
    private let fixEndpoints: [String]
    private var published = 0
    /// Topics per shard, built once: the sighting path must not rebuild them per message.
    private let topics: [(sighting: String, location: String, device: String)]
    /// Sighting batches within `--sighting-batch-bytes` as well as 256 sightings.
    let splitter: SightingBatchSplitter

    /// The service on `host`, not yet answering: call `start()`.
    public init(host: ServiceHost, settings: IngestSettings) {
        clock = host.clock
        logger = host.logger
        reactor = host.reactor
        requests = host.requests
        router = host.requests.router
        heartbeat = host.heartbeat
        events = host.events
        engine = IngestEngine(smoothingWindow: settings.smoothingWindowSeconds, evidenceWindow: settings.evidenceWindowSeconds)
        store = IngestStore(db: host.db)
        ownership = ShardOwnership(shards: settings.shards, ownedShard: settings.ownedShard)
        fixes = FixChannel(context: host.context, security: host.security, events: host.events)
        fixEndpoints = settings.fixEndpoints
        topics = (0..<ownership.shards).map { (Topic.sighting(shard: $0), Topic.location(shard: $0), Topic.device(shard: $0)) }
        let source = host.events.publisher.outbox.source
        // Compact frames (`--sighting-encoding`) when this source's envelope fits one: the splitter
        // bounds them, and the publisher writes them, exactly when it has their envelope bound.
        splitter = SightingBatchSplitter(maxBytes: settings.sightingBatchBytes,
                                         envelopeBytes: SightingBatchSplitter.envelopeBytes(source: source, stream: "sighting"),
                                         compactEnvelopeBytes: settings.sightingEncoding == .compact
                                             ? SightingBatchSplitter.compactEnvelopeBytes(source: source, stream: "sighting") : nil)
    }

    /// Migrates the store, connects the fix channel, registers the ops, the expiry sweep and health.
    public func start() throws {
        try store.migrate()
        try fixes.connect(fixEndpoints)
        // Its device stream travels on one shard's topics only: other shards' consumers skip it.
        heartbeat.shard = ownership.ownedShard.map { "s\($0)" }
        // A phone reports only for the device its key belongs to (a report for another device
        // could withdraw that device's location authorization); a gateway reports for any.
        router.on(Op.ingestReport, IngestReport.self) { [unowned self] body, caller in
            var report = body
            report.deviceId = try caller.actingDevice(required: body.deviceId)
            return try self.ingest(report)
        }
        // Gateways only (the op table): no scoped role reaches it, so the handler needs no caller.
        router.on(Op.ingestBatch, IngestBatch.self) { [unowned self] batch in try self.ingest(batch) }
        // A sweep over every device's smoothing state: rare enough not to stall the ingress
        // often (entries are trimmed whenever their device reports anyway).
        reactor.every(30, name: "smoothing.expire") { [unowned self] in self.engine.expire(now: self.clock.now()) }
        requests.addHealthDetails { [unowned self] in
            ["devices.smoothing": "\(engine.trackedDevices)", "published.bestEffort": "\(published)", "fixes.dropped": "\(fixes.dropped)",
             "shards": "\(ownership.shards)", "shard": ownership.ownedShard.map(String.init) ?? "all"]
        }
    }

    /// What a processed report leaves to publish once its status change has committed.
    private struct Pending {
        var shard: Int
        var sightings: [Sighting]
        var fixes: [LocationFix]
    }

    /// Every device's last stored status, read from SQLite once and then kept here: a report is
    /// judged without touching the database, and only a status change opens a transaction.
    /// Updated only after the change committed. (A device never seen is read each time it
    /// reports, and refused: remembering unknown ids would let anyone grow this without bound.)
    private var statuses: [String: DeviceStatus] = [:]

    /// The device's stored status, from memory once read.
    private func storedStatus(of deviceId: String) throws -> DeviceStatus? {
        if let status = statuses[deviceId] { return status }
        let status = try store.status(of: deviceId)
        if let status { statuses[deviceId] = status }
        return status
    }

    /// A request's status changes in the order they happened (a device may change twice, say
    /// withdraw and grant again: both are published, so region-monitor drops its data), and the
    /// latest per device, which later reports of the same request are judged by.
    private struct Changes {
        var inOrder: [DeviceStatus] = []
        var latest: [String: DeviceStatus] = [:]
    }

    /// `ingest.report`: one phone's batch.
    func ingest(_ report: IngestReport) throws -> IngestResult {
        var changes = Changes()
        let (result, pending) = try process(report, changes: &changes)
        try commit(changes)
        try publish([pending])
        return result
    }

    /// `ingest.batch` from a gateway: at most 1,000 reports and 10,000 sightings, each judged alone.
    /// Their status changes commit together (one transaction per batch that has any, none for the
    /// rest), and only then are the sightings published, so a device's status always reaches the
    /// bus before its sightings.
    func ingest(_ batch: IngestBatch) throws -> IngestBatchResult {
        try engine.validator.validateBatch(batch)
        var items: [IngestBatchItem] = []
        items.reserveCapacity(batch.reports.count)
        var pending: [Pending] = []
        pending.reserveCapacity(batch.reports.count)
        var changes = Changes()
        for report in batch.reports {
            // validateBatch refused a batch with a report that names no device.
            let deviceId = report.deviceId ?? ""
            do {
                let (result, published) = try process(report, changes: &changes)
                items.append(IngestBatchItem(deviceId: deviceId, result: result))
                pending.append(published)
            } catch let error as ServiceError {
                items.append(IngestBatchItem(deviceId: deviceId, error: error))
            }
        }
        try commit(changes)
        try publish(pending)
        return IngestBatchResult(accepted: items.reduce(0) { $0 + $1.accepted }, rejected: items.reduce(0) { $0 + $1.rejected }, results: items)
    }

    /// Judges one report against its device's status (a change earlier in the same request
    /// counts), noting a changed status in `changes`.
    private func process(_ report: IngestReport, changes: inout Changes) throws -> (IngestResult, Pending) {
        // A malformed id is a malformed id, whichever shard it would hash to.
        let deviceId = try engine.validator.deviceID(of: report)
        let shard = try ownership.shard(of: deviceId)
        let known = try changes.latest[deviceId] ?? storedStatus(of: deviceId)
        let outcome = try engine.process(report, known: known, now: clock.now())
        if let status = outcome.changedStatus {
            changes.inOrder.append(status)
            changes.latest[deviceId] = status
            if outcome.purge {
                logger.info("location data dropped", ["device.id": status.deviceId, "authorization": status.authorization.rawValue])
            }
        }
        return (outcome.result, Pending(shard: shard, sightings: outcome.sightings, fixes: outcome.fixes))
    }

    /// Stores the request's status changes with their `device.status` events in one transaction,
    /// then remembers them. Nothing to change, no transaction. When the write fails the request
    /// fails and memory keeps what committed.
    private func commit(_ changes: Changes) throws {
        guard !changes.inOrder.isEmpty else { return }
        try events.write {
            for status in changes.inOrder {
                try store.save(status)
                let shard = try ownership.shard(of: status.deviceId)
                try events.emit(.deviceStatus, topic: topics[shard].device, stream: "device", .deviceStatus(status))
            }
        }
        statuses.merge(changes.latest) { _, new in new }
    }

    /// Sightings go out as `sighting.batch`, one message per shard per request unless it would
    /// be over `SightingBatch.maxCount` sightings or `--sighting-batch-bytes` (then several), in
    /// the order they were taken; fixes go to their shard's channel, report by report.
    private func publish(_ pending: [Pending]) throws {
        var byShard: [[Sighting]] = Array(repeating: [], count: topics.count)
        for item in pending {
            byShard[item.shard].append(contentsOf: item.sightings)
            if !item.fixes.isEmpty { try fixes.send(item.fixes, shard: item.shard, topic: topics[item.shard].location) }
            published += item.sightings.count + item.fixes.count
        }
        for (shard, sightings) in byShard.enumerated() where !sightings.isEmpty {
            let ranges = splitter.ranges(of: sightings)
            for range in ranges {
                // Most requests fit one message: then the array goes as it is, not copied.
                let chunk = ranges.count == 1 ? sightings : Array(sightings[range])
                try events.publishBestEffort(.sightingBatch, topic: topics[shard].sighting, stream: "sighting", .sightings(SightingBatch(sightings: chunk)),
                                              compact: splitter.compactEnvelopeBytes != nil)
            }
        }
    }
}
