import BeaconIngestCore
import Foundation
import Messages
import SQLite
import ServiceRuntime
import ZeroMQ

/// The shell around `IngestEngine`: device status in SQLite, batches on the request socket,
/// status changes through the outbox (durable), sightings straight to the bus, and fixes over a
/// direct channel to region-monitor: coordinates never cross the bus, where anyone may subscribe.
final class IngestService {
    static let migrations = [
        Migration(1, """
            CREATE TABLE devices (
                device_id TEXT PRIMARY KEY,
                authorization TEXT NOT NULL,
                foreground INTEGER NOT NULL,
                precise INTEGER NOT NULL,
                monitoring_available INTEGER NOT NULL,
                ranging_available INTEGER NOT NULL,
                changed_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            """),
    ]

    private let host: ServiceHost
    private let engine: IngestEngine
    private let shards: Int
    /// The one shard this instance serves, or nil for all.
    private let ownedShard: Int?
    private var published = 0
    /// Region-monitor's fix endpoints: one for every shard, or one per shard in shard order.
    private let fixEndpoints: [String]
    private var fixSenders: [Socket] = []
    private var droppedFixes = 0
    /// Topics per shard, built once: the sighting path must not rebuild them per message.
    private lazy var topics: [(sighting: String, location: String, device: String)] = (0..<shards).map {
        (Topic.sighting(shard: $0), Topic.location(shard: $0), Topic.device(shard: $0))
    }

    init(host: ServiceHost, shards: Int, ownedShard: Int?, smoothingWindow: Double, fixEndpoints: [String]) {
        self.host = host
        self.engine = IngestEngine(smoothingWindow: smoothingWindow)
        self.shards = shards
        self.ownedShard = ownedShard
        self.fixEndpoints = fixEndpoints
    }

    func start() throws {
        try host.db.migrate("beacon-ingest", Self.migrations)
        for endpoint in fixEndpoints {
            let socket = try Socket(host.context, .push)
            try socket.setLinger(milliseconds: 0)
            try socket.setSendHighWaterMark(100_000)
            try socket.setReconnectInterval(milliseconds: 100, maxMilliseconds: 2_000)
            try socket.connect(endpoint)
            fixSenders.append(socket)
        }
        host.router.on(Op.ingestReport, IngestReport.self) { [unowned self] report in try self.ingest(report) }
        host.router.on(Op.ingestBatch, IngestBatch.self) { [unowned self] batch in try self.ingest(batch) }
        // A sweep over every device's smoothing state: rare enough not to stall the ingress
        // often (entries are trimmed whenever their device reports anyway).
        host.reactor.every(30, name: "smoothing.expire") { [unowned self] in self.engine.expire(now: self.host.clock.now()) }
        host.addHealthDetails { [unowned self] in
            ["devices.smoothing": "\(engine.trackedDevices)", "published.bestEffort": "\(published)", "fixes.dropped": "\(droppedFixes)", "shards": "\(shards)",
             "shard": ownedShard.map(String.init) ?? "all"]
        }
    }

    /// What a processed report leaves to publish once its status change has committed.
    private struct Pending {
        var shard: Int
        var sightings: [Sighting]
        var fixes: [LocationFix]
    }

    private func ingest(_ report: IngestReport) throws -> IngestResult {
        let (result, pending) = try host.write { try process(report) }
        try publish(pending)
        return result
    }

    /// Batches from a gateway: at most 1,000 reports and 10,000 sightings, each judged alone.
    /// Their status changes commit together (one commit per batch, not per device), and only then
    /// are the sightings published, so a device's status always reaches the bus before its sightings.
    private func ingest(_ batch: IngestBatch) throws -> IngestBatchResult {
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
        let shard = Topic.shard(of: report.deviceId, count: shards)
        if let ownedShard, shard != ownedShard {
            throw ServiceError(.wrongShard, "device \(report.deviceId.prefix(64)) belongs to shard \(shard) of \(shards); this instance serves shard \(ownedShard)")
        }
        let known = try loadStatus(report.deviceId)
        let outcome = try engine.process(report, known: known, now: host.clock.now())
        if let status = outcome.changedStatus {
            try host.db.run("""
                INSERT INTO devices (device_id, authorization, foreground, precise, monitoring_available, ranging_available, changed_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(device_id) DO UPDATE SET authorization = excluded.authorization, foreground = excluded.foreground,
                    precise = excluded.precise, monitoring_available = excluded.monitoring_available,
                    ranging_available = excluded.ranging_available, changed_ms = excluded.changed_ms
                """, status.deviceId, status.authorization.rawValue, status.foreground, status.precise,
                status.monitoringAvailable, status.rangingAvailable, status.changedAt.milliseconds)
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
        if !pending.fixes.isEmpty {
            let sender = fixSenders.count == 1 ? fixSenders[0] : fixSenders[pending.shard]
            for fix in pending.fixes {
                let sent = try host.sendBestEffort(on: sender, .locationFix, topic: topics[pending.shard].location, stream: "location", .locationFix(fix))
                // Not sent: region-monitor is gone or far behind. A fix is best-effort, like a sighting.
                if !sent { droppedFixes += 1 }
            }
        }
        published += pending.sightings.count + pending.fixes.count
    }

    private func loadStatus(_ deviceId: String) throws -> DeviceStatus? {
        guard let row = try host.db.query("SELECT * FROM devices WHERE device_id = ?", deviceId).first,
              let authorization = Authorization(rawValue: row.string("authorization"))
        else { return nil }
        return DeviceStatus(deviceId: deviceId, authorization: authorization, foreground: row.bool("foreground"), precise: row.bool("precise"),
                            monitoringAvailable: row.bool("monitoring_available"), rangingAvailable: row.bool("ranging_available"),
                            changedAt: Timestamp(milliseconds: row.int64("changed_ms")))
    }
}
