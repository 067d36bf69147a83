import BeaconIngestCore
import Foundation
import Messages
import SQLite
import ServiceRuntime

/// The shell around `IngestEngine`: device status in SQLite, batches on the request socket,
/// status changes through the outbox (durable), sightings and fixes straight to the bus.
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
    private let engine = IngestEngine()
    private let shards: Int
    private var published = 0

    init(host: ServiceHost, shards: Int) {
        self.host = host
        self.shards = shards
    }

    func start() throws {
        try host.db.migrate("beacon-ingest", Self.migrations)
        host.router.on(Op.ingestReport, IngestReport.self) { [unowned self] report in try self.ingest(report) }
        host.reactor.every(5, name: "smoothing.expire") { [unowned self] in self.engine.expire(now: self.host.clock.now()) }
        host.addHealthDetails { [unowned self] in
            ["devices.smoothing": "\(engine.trackedDevices)", "published.bestEffort": "\(published)", "shards": "\(shards)"]
        }
    }

    private func ingest(_ report: IngestReport) throws -> IngestResult {
        let known = try loadStatus(report.deviceId)
        let outcome = try engine.process(report, known: known, now: host.clock.now())
        let shard = Topic.shard(of: report.deviceId, count: shards)
        if let status = outcome.changedStatus {
            try host.write {
                try host.db.run("""
                    INSERT INTO devices (device_id, authorization, foreground, precise, monitoring_available, ranging_available, changed_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(device_id) DO UPDATE SET authorization = excluded.authorization, foreground = excluded.foreground,
                        precise = excluded.precise, monitoring_available = excluded.monitoring_available,
                        ranging_available = excluded.ranging_available, changed_ms = excluded.changed_ms
                    """, status.deviceId, status.authorization.rawValue, status.foreground, status.precise,
                    status.monitoringAvailable, status.rangingAvailable, status.changedAt.milliseconds)
                try host.emit(.deviceStatus, topic: Topic.device(shard: shard), stream: "device", .deviceStatus(status))
            }
            if outcome.purge {
                host.logger.info("location data dropped", ["device.id": status.deviceId, "authorization": status.authorization.rawValue])
            }
        }
        for sighting in outcome.sightings {
            try host.publishBestEffort(.sightingReported, topic: Topic.sighting(shard: shard), stream: "sighting", .sighting(sighting))
        }
        for fix in outcome.fixes {
            try host.publishBestEffort(.locationFix, topic: Topic.location(shard: shard), stream: "location", .locationFix(fix))
        }
        published += outcome.sightings.count + outcome.fixes.count
        return outcome.result
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
