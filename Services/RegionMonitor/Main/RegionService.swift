import Campus
import Foundation
import Messages
import RegionMonitorCore
import SQLite
import ServiceRuntime

/// The shell around `RegionEngine`: records, nearest answers, device status and last fixes in
/// SQLite; each record change written with its event in one transaction.
final class RegionService {
    static let migrations = [
        Migration(1, """
            CREATE TABLE records (
                monitor TEXT NOT NULL,
                identifier TEXT NOT NULL,
                device_id TEXT NOT NULL,
                state TEXT NOT NULL,
                refinement TEXT,
                last_event TEXT,
                PRIMARY KEY (monitor, identifier, device_id)
            ) WITHOUT ROWID;
            CREATE INDEX records_device ON records (device_id);
            CREATE TABLE nearest (device_id TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
            CREATE TABLE devices (
                device_id TEXT PRIMARY KEY,
                authorization TEXT NOT NULL,
                foreground INTEGER NOT NULL,
                ranging_available INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE last_fixes (
                device_id TEXT PRIMARY KEY,
                latitude REAL NOT NULL,
                longitude REAL NOT NULL,
                horizontal_accuracy REAL NOT NULL,
                precise INTEGER NOT NULL,
                observed_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            """),
    ]

    private let host: ServiceHost
    private let engine: RegionEngine
    private let shard: String
    /// Devices whose authorization is withdrawn, mirrored from the `devices` table so the sighting
    /// path never queries SQLite.
    private var withdrawn: Set<String> = []
    private var refusedSightings = 0
    private var consumedSightings = 0
    private var consumedFixes = 0

    init(host: ServiceHost, catalog: CampusCatalog, monitor: String, exitTimeout: Double, shard: String) {
        self.host = host
        self.shard = shard
        let conditions = catalog.cafes.map {
            BeaconCondition(identifier: $0.id, uuid: catalog.beaconUUID, major: $0.beaconMajor, exitTimeout: exitTimeout)
        }
        engine = RegionEngine(monitor: monitor, conditions: conditions)
    }

    func start() throws {
        try host.db.migrate("region-monitor", Self.migrations)
        let now = host.clock.now()
        for row in try host.db.query("SELECT * FROM records WHERE monitor = ?", engine.monitor) {
            let lastEvent = try row.optionalString("last_event").map { try JSONDecoder().decode(RegionEvent.self, from: Data($0.utf8)) }
            let refinement = try row.optionalString("refinement").map { try JSONDecoder().decode(BeaconIdentity.self, from: Data($0.utf8)) }
            engine.restore(deviceId: row.string("device_id"), identifier: row.string("identifier"),
                           record: ConditionRecord(state: ConditionState(rawValue: row.string("state")) ?? .unknown, refinement: refinement, lastSeen: nil, lastEvent: lastEvent),
                           now: now)
        }
        for row in try host.db.query("SELECT value FROM nearest") {
            engine.restoreNearest(try JSONDecoder().decode(NearestBeacon.self, from: Data(row.string("value").utf8)), now: now)
        }
        for row in try host.db.query("SELECT device_id, authorization, foreground FROM devices") {
            if let authorization = Authorization(rawValue: row.string("authorization")),
               AuthorizationPolicy.requiresPurge(authorization: authorization, foreground: row.bool("foreground")) {
                withdrawn.insert(row.string("device_id"))
            }
        }
        let suffix = shard.isEmpty ? "" : "\(shard)."
        try host.subscribe(["sighting.\(suffix)", "location.\(suffix)", "device.\(suffix)"], durableStreams: ["device"]) { [unowned self] topic, envelope in
            try self.consume(envelope)
        }
        host.reactor.every(0.5, name: "beacon.exit") { [unowned self] in try self.apply(self.engine.tick(now: self.host.clock.now())) }
        host.router.on(Op.monitorIdentifiers, MonitorQuery.self) { [unowned self] query in
            try self.checkMonitor(query.monitor)
            return MonitorIdentifiers(monitor: query.monitor, identifiers: engine.conditions.map(\.identifier).sorted())
        }
        host.router.on(Op.monitorRecord, RecordQuery.self) { [unowned self] query in
            try self.checkMonitor(query.monitor)
            guard let condition = engine.conditions.first(where: { $0.identifier == query.identifier }) else {
                throw ServiceError(.unknownCondition, "monitor \(query.monitor) has no condition \"\(query.identifier)\"")
            }
            return MonitorRecord(identifier: query.identifier, condition: condition.condition,
                                 lastEvent: engine.record(deviceId: query.deviceId ?? "", identifier: query.identifier)?.lastEvent)
        }
        host.router.on(Op.nearestGet, DeviceQuery.self) { [unowned self] query in
            engine.nearestBeacon(deviceId: query.deviceId) ?? NearestBeacon(deviceId: query.deviceId, beacon: nil, proximity: nil, date: host.clock.now())
        }
        host.addHealthDetails { [unowned self] in
            ["devices.tracked": "\(engine.trackedDevices)", "sightings.consumed": "\(consumedSightings)", "sightings.refused": "\(refusedSightings)",
             "fixes.consumed": "\(consumedFixes)", "conditions": "\(engine.conditions.count)"]
        }
    }

    private func checkMonitor(_ name: String) throws {
        guard name == engine.monitor else { throw ServiceError(.unknownMonitor, "no monitor named \"\(name)\" (this instance holds \"\(engine.monitor)\")") }
    }

    private func consume(_ envelope: Envelope) throws {
        switch envelope.body {
        case .sighting(let sighting):
            consumedSightings += 1
            guard mayLocate(sighting.deviceId) else {
                refusedSightings += 1
                return
            }
            try apply(engine.sighting(sighting))
        case .locationFix(let fix):
            consumedFixes += 1
            guard mayLocate(fix.deviceId) else { return }
            try host.db.run("""
                INSERT INTO last_fixes (device_id, latitude, longitude, horizontal_accuracy, precise, observed_ms) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(device_id) DO UPDATE SET latitude = excluded.latitude, longitude = excluded.longitude,
                    horizontal_accuracy = excluded.horizontal_accuracy, precise = excluded.precise, observed_ms = excluded.observed_ms
                WHERE excluded.observed_ms >= last_fixes.observed_ms
                """, fix.deviceId, fix.latitude, fix.longitude, fix.horizontalAccuracy, fix.precise, fix.observedAt.milliseconds)
        case .deviceStatus(let status):
            try host.write {
                try host.db.run("""
                    INSERT INTO devices (device_id, authorization, foreground, ranging_available) VALUES (?, ?, ?, ?)
                    ON CONFLICT(device_id) DO UPDATE SET authorization = excluded.authorization, foreground = excluded.foreground,
                        ranging_available = excluded.ranging_available
                    """, status.deviceId, status.authorization.rawValue, status.foreground, status.rangingAvailable)
                if AuthorizationPolicy.requiresPurge(authorization: status.authorization, foreground: status.foreground) {
                    try purge(status)
                }
            }
            // Mirror the stored authorization. Should the surrounding transaction roll back, the event
            // is dead-lettered and memory errs on the side of dropping this device's location data.
            if AuthorizationPolicy.requiresPurge(authorization: status.authorization, foreground: status.foreground) {
                withdrawn.insert(status.deviceId)
            } else {
                withdrawn.remove(status.deviceId)
            }
        default:
            throw ServiceError(.unknownType, "region-monitor does not consume \(envelope.type.rawValue)")
        }
    }

    /// A device whose authorization we know to be withdrawn contributes nothing, even if a
    /// sighting raced its status change through the bus.
    private func mayLocate(_ deviceId: String) -> Bool {
        !withdrawn.contains(deviceId)
    }

    private func purge(_ status: DeviceStatus) throws {
        engine.purge(deviceId: status.deviceId)
        try host.db.run("DELETE FROM records WHERE device_id = ?", status.deviceId)
        try host.db.run("DELETE FROM nearest WHERE device_id = ?", status.deviceId)
        try host.db.run("DELETE FROM last_fixes WHERE device_id = ?", status.deviceId)
        try host.emit(.regionPurged, topic: Topic.regionPurged, stream: "region",
                      .purged(LocationPurged(deviceId: status.deviceId, reason: status.authorization, date: status.changedAt)))
        host.logger.info("location data dropped", ["device.id": status.deviceId, "authorization": status.authorization.rawValue])
    }

    /// Writes every changed record with its event, and changed nearest answers, in one transaction.
    private func apply(_ effects: RegionEffects) throws {
        guard !effects.isEmpty else { return }
        try host.write {
            for event in effects.events {
                let record = engine.record(deviceId: event.deviceId, identifier: event.identifier)
                try host.db.run("""
                    INSERT INTO records (monitor, identifier, device_id, state, refinement, last_event) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(monitor, identifier, device_id) DO UPDATE SET state = excluded.state, refinement = excluded.refinement,
                        last_event = excluded.last_event
                    """, event.monitor, event.identifier, event.deviceId, event.state.rawValue,
                    record?.refinement.map { String(decoding: Wire.encode($0), as: UTF8.self) },
                    String(decoding: Wire.encode(event), as: UTF8.self))
                try host.emit(.regionEvent, topic: Topic.regionEvent(monitor: event.monitor), stream: "region", .region(event))
            }
            for value in effects.nearest {
                if value.beacon == nil {
                    try host.db.run("DELETE FROM nearest WHERE device_id = ?", value.deviceId)
                } else {
                    try host.db.run("INSERT INTO nearest (device_id, value) VALUES (?, ?) ON CONFLICT(device_id) DO UPDATE SET value = excluded.value",
                                    value.deviceId, String(decoding: Wire.encode(value), as: UTF8.self))
                }
                try host.emit(.regionNearest, topic: Topic.regionNearest, stream: "region", .nearest(value))
            }
        }
    }
}
