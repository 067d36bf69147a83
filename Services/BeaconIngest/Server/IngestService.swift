import BeaconIngestCore
import Foundation
import Messages
import ServiceRuntime

/// The shell around `IngestEngine`: device status in SQLite (`IngestStore`), batches on the
/// request socket, status changes through the outbox (durable), sightings straight to the bus, and
/// fixes over a direct channel to region-monitor (`FixChannel`).
public final class IngestService {
    let host: ServiceHost
    let engine: IngestEngine
    let store: IngestStore
    let ownership: ShardOwnership
    let fixes: FixChannel
    private let fixEndpoints: [String]
    private var published = 0
    /// Topics per shard, built once: the sighting path must not rebuild them per message.
    private let topics: [(sighting: String, location: String, device: String)]

    /// The service on `host`, not yet answering: call `start()`.
    public init(host: ServiceHost, settings: IngestSettings) {
        self.host = host
        engine = IngestEngine(smoothingWindow: settings.smoothingWindowSeconds)
        store = IngestStore(db: host.db)
        ownership = ShardOwnership(shards: settings.shards, ownedShard: settings.ownedShard)
        fixes = FixChannel(host: host)
        fixEndpoints = settings.fixEndpoints
        topics = (0..<ownership.shards).map { (Topic.sighting(shard: $0), Topic.location(shard: $0), Topic.device(shard: $0)) }
    }

    /// Migrates the store, connects the fix channel, registers the ops, the expiry sweep and health.
    public func start() throws {
        try store.migrate()
        try fixes.connect(fixEndpoints)
        // A phone reports only for the device its key belongs to (a report for another device
        // could withdraw that device's location authorization); a gateway reports for any.
        host.router.on(Op.ingestReport, IngestReport.self) { [unowned self] report, caller in
            _ = try caller.actingDevice(required: report.deviceId)
            return try self.ingest(report)
        }
        // Gateways only (the op table): no scoped role reaches it, so the handler needs no caller.
        host.router.on(Op.ingestBatch, IngestBatch.self) { [unowned self] batch in try self.ingest(batch) }
        // A sweep over every device's smoothing state: rare enough not to stall the ingress
        // often (entries are trimmed whenever their device reports anyway).
        host.reactor.every(30, name: "smoothing.expire") { [unowned self] in self.engine.expire(now: self.host.clock.now()) }
        host.addHealthDetails { [unowned self] in
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

    /// `ingest.report`: one phone's batch.
    func ingest(_ report: IngestReport) throws -> IngestResult {
        let (result, pending) = try host.write { try process(report) }
        try publish(pending)
        return result
    }

    /// `ingest.batch` from a gateway: at most 1,000 reports and 10,000 sightings, each judged alone.
    /// Their status changes commit together (one commit per batch, not per device), and only then
    /// are the sightings published, so a device's status always reaches the bus before its sightings.
    func ingest(_ batch: IngestBatch) throws -> IngestBatchResult {
        try engine.validator.validateBatch(batch)
        var items: [IngestBatchItem] = []
        items.reserveCapacity(batch.reports.count)
        var pending: [Pending] = []
        try host.write {
            for report in batch.reports {
                do {
                    let (result, published) = try process(report)
                    items.append(IngestBatchItem(deviceId: report.deviceId, result: result))
                    pending.append(published)
                } catch let error as ServiceError {
                    items.append(IngestBatchItem(deviceId: report.deviceId, error: error))
                }
            }
        }
        for item in pending { try publish(item) }
        return IngestBatchResult(accepted: items.reduce(0) { $0 + $1.accepted }, rejected: items.reduce(0) { $0 + $1.rejected }, results: items)
    }

    /// Judges one report and writes its status change (inside the caller's transaction).
    private func process(_ report: IngestReport) throws -> (IngestResult, Pending) {
        // A malformed id is a malformed id, whichever shard it would hash to.
        try engine.validator.validateDeviceID(report.deviceId)
        let shard = try ownership.shard(of: report.deviceId)
        let outcome = try engine.process(report, known: try store.status(of: report.deviceId), now: host.clock.now())
        if let status = outcome.changedStatus {
            try store.save(status)
            try host.emit(.deviceStatus, topic: topics[shard].device, stream: "device", .deviceStatus(status))
            if outcome.purge {
                host.logger.info("location data dropped", ["device.id": status.deviceId, "authorization": status.authorization.rawValue])
            }
        }
        return (outcome.result, Pending(shard: shard, sightings: outcome.sightings, fixes: outcome.fixes))
    }

    private func publish(_ pending: Pending) throws {
        for sighting in pending.sightings {
            try host.publishBestEffort(.sightingReported, topic: topics[pending.shard].sighting, stream: "sighting", .sighting(sighting))
        }
        try fixes.send(pending.fixes, shard: pending.shard, topic: topics[pending.shard].location)
        published += pending.sightings.count + pending.fixes.count
    }
}
