import Campus
import Foundation
import Messages
import RegionMonitorCore
import SQLite
import ServiceRuntime
import ZeroMQ

/// The shell around `RegionEngine`: monitors, conditions, records, nearest answers, device status
/// and recent fixes in SQLite; each record change written with its event in one transaction.
/// Fixes arrive on a direct channel from beacon-ingest, never over the bus, and nothing this
/// service publishes or answers carries a coordinate.
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
        Migration(2, """
            CREATE TABLE monitors (name TEXT PRIMARY KEY, owner TEXT) WITHOUT ROWID;
            CREATE TABLE conditions (
                monitor TEXT NOT NULL,
                identifier TEXT NOT NULL,
                position INTEGER NOT NULL,
                spec TEXT NOT NULL,
                PRIMARY KEY (monitor, identifier)
            ) WITHOUT ROWID;
            DROP TABLE last_fixes;
            CREATE TABLE fixes (
                device_id TEXT NOT NULL,
                observed_ms INTEGER NOT NULL,
                latitude REAL NOT NULL,
                longitude REAL NOT NULL,
                horizontal_accuracy REAL NOT NULL,
                precise INTEGER NOT NULL,
                PRIMARY KEY (device_id, observed_ms)
            ) WITHOUT ROWID;
            CREATE INDEX fixes_time ON fixes (observed_ms);
            ALTER TABLE devices ADD COLUMN precise INTEGER NOT NULL DEFAULT 1;
            """),
    ]

    /// A condition as stored: everything of `monitor.add` but the owner.
    struct StoredCondition: Codable {
        var condition: Condition
        var deviceId: String?
        var assuming: ConditionState?
    }

    struct Settings {
        var campusMonitor: String
        var shard: String
        var fixListen: String
        var tickSeconds: Double
        var engine: RegionSettings
    }

    private let host: ServiceHost
    private let catalog: CampusCatalog
    private let engine: RegionEngine
    private let settings: Settings
    private var fixReceiver: Socket?
    /// Devices whose authorization is withdrawn, mirrored from the `devices` table so the sighting
    /// path never queries SQLite.
    private var withdrawn: Set<String> = []
    private var refusedSightings = 0
    private var consumedSightings = 0
    private var consumedFixes = 0
    private var refusedFixes = 0
    private var confirmations = 0
    private var nextPosition = 0

    init(host: ServiceHost, catalog: CampusCatalog, settings: Settings) {
        self.host = host
        self.catalog = catalog
        self.settings = settings
        engine = RegionEngine(settings: settings.engine)
    }

    func start() throws {
        try host.db.migrate("region-monitor", Self.migrations)
        try restore()
        let suffix = settings.shard.isEmpty ? "" : "\(settings.shard)."
        try host.subscribe(["sighting.\(suffix)", "device.\(suffix)"], durableStreams: ["device"]) { [unowned self] topic, envelope in
            try self.consume(envelope)
        }
        try listenForFixes()
        host.reactor.every(settings.tickSeconds, name: "region.timer") { [unowned self] in try self.apply(self.engine.tick(now: self.host.clock.now())) }
        host.reactor.every(60, name: "fixes.expire") { [unowned self] in try self.expireFixes() }
        routeMonitorOps()
        routeLocationOps()
        host.addHealthDetails { [unowned self] in
            ["devices.tracked": "\(engine.trackedDevices)", "sightings.consumed": "\(consumedSightings)", "sightings.refused": "\(refusedSightings)",
             "fixes.consumed": "\(consumedFixes)", "fixes.refused": "\(refusedFixes)", "monitors": "\(engine.monitorInfos.count)",
             "confirmations": "\(confirmations)"]
        }
    }

    // MARK: Start

    private func restore() throws {
        let now = host.clock.now()
        engine.declareBuiltIn(settings.campusMonitor)
        for spec in ConditionSpec.campus(catalog, monitor: settings.campusMonitor) {
            try engine.add(spec, owner: nil, now: now)
        }
        for row in try host.db.query("SELECT name, owner FROM monitors ORDER BY name") {
            engine.restoreMonitor(row.string("name"), owner: row.optionalString("owner"))
        }
        for row in try host.db.query("SELECT monitor, identifier, position, spec FROM conditions ORDER BY position") {
            let stored = try JSONDecoder().decode(StoredCondition.self, from: Data(row.string("spec").utf8))
            try engine.add(ConditionSpec(monitor: row.string("monitor"), identifier: row.string("identifier"), condition: stored.condition,
                                         deviceId: stored.deviceId, assuming: stored.assuming), owner: nil, now: now)
            nextPosition = max(nextPosition, Int(row.int64("position")) + 1)
        }
        for row in try host.db.query("SELECT device_id, authorization, foreground, ranging_available FROM devices") {
            let device = row.string("device_id")
            if let authorization = Authorization(rawValue: row.string("authorization")),
               AuthorizationPolicy.requiresPurge(authorization: authorization, foreground: row.bool("foreground")) {
                withdrawn.insert(device)
            }
            engine.restoreStatus(deviceId: device, rangingAvailable: row.bool("ranging_available"), now: now)
        }
        var stale = 0
        for row in try host.db.query("SELECT monitor, identifier, device_id, last_event FROM records") {
            let (monitor, identifier) = (row.string("monitor"), row.string("identifier"))
            guard engine.spec(monitor: monitor, identifier: identifier) != nil, let text = row.optionalString("last_event") else {
                // Its condition is gone (the catalog changed): the record goes too.
                try host.db.run("DELETE FROM records WHERE monitor = ? AND identifier = ? AND device_id = ?", monitor, identifier, row.string("device_id"))
                stale += 1
                continue
            }
            engine.restore(deviceId: row.string("device_id"), monitor: monitor, identifier: identifier,
                           lastEvent: try JSONDecoder().decode(RegionEvent.self, from: Data(text.utf8)), now: now)
        }
        for row in try host.db.query("SELECT value FROM nearest") {
            engine.restoreNearest(try JSONDecoder().decode(NearestBeacon.self, from: Data(row.string("value").utf8)), now: now)
        }
        let cutoff = now.milliseconds - Int64(settings.engine.fixRetention * 1000)
        try host.db.run("DELETE FROM fixes WHERE observed_ms < ?", cutoff)
        for row in try host.db.query("SELECT * FROM fixes ORDER BY device_id, observed_ms") {
            engine.restoreFix(LocationFix(deviceId: row.string("device_id"), latitude: row.double("latitude"), longitude: row.double("longitude"),
                                          horizontalAccuracy: row.double("horizontal_accuracy"), precise: row.bool("precise"),
                                          observedAt: Timestamp(milliseconds: row.int64("observed_ms"))), now: now)
        }
        if stale > 0 { host.logger.info("records of removed conditions dropped", ["records": "\(stale)"]) }
    }

    // MARK: Fixes (direct channel)

    /// Fixes come straight from beacon-ingest over PUSH→PULL, so coordinates never cross the bus
    /// where any subscriber could read them. Best-effort like sightings.
    private func listenForFixes() throws {
        let socket = try Socket(host.context, .pull)
        try socket.setLinger(milliseconds: 0)
        try socket.setReceiveHighWaterMark(100_000)
        try socket.setMaxMessageSize(bytes: Int64(host.maxMessageBytes))
        try socket.bind(settings.fixListen)
        fixReceiver = socket
        host.reactor.onReadable(socket) { [unowned self] in try self.drainFixes() }
    }

    private func drainFixes() throws {
        guard let socket = fixReceiver else { return }
        var more = true
        for _ in 0..<64 where more {
            more = false
            try host.write {
                for _ in 0..<256 {
                    guard let frames = try socket.tryReceiveMultipart() else { return }
                    more = true
                    receiveFix(frames)
                }
            }
        }
    }

    private func receiveFix(_ frames: [Data]) {
        let topic = frames.first.map { String(decoding: $0.prefix(128), as: UTF8.self) } ?? ""
        do {
            guard frames.count == 2 else { throw WireError(.messageMalformed, "expected 2 frames [topic][envelope], got \(frames.count)") }
            let envelope = try Wire.decodeEnvelope(frames[1], maxBytes: host.maxMessageBytes)
            guard case .locationFix(let fix) = envelope.body else {
                throw ServiceError(.unknownType, "the fix channel carries location.fix only, not \(envelope.type.rawValue)")
            }
            try host.write { try consumeFix(fix) }
        } catch {
            // No excerpt: a dead letter is published on the bus, and this channel carries coordinates.
            host.deadLetter(topic: topic, raw: Data(), error: error)
        }
    }

    private func consumeFix(_ fix: LocationFix) throws {
        consumedFixes += 1
        guard mayLocate(fix.deviceId) else {
            refusedFixes += 1
            return
        }
        let effects = engine.fix(fix)
        try host.db.run("""
            INSERT INTO fixes (device_id, observed_ms, latitude, longitude, horizontal_accuracy, precise) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(device_id, observed_ms) DO UPDATE SET latitude = excluded.latitude, longitude = excluded.longitude,
                horizontal_accuracy = excluded.horizontal_accuracy, precise = excluded.precise
            """, fix.deviceId, fix.observedAt.milliseconds, fix.latitude, fix.longitude, fix.horizontalAccuracy, fix.precise)
        try host.db.run("""
            DELETE FROM fixes WHERE device_id = ? AND observed_ms < (
                SELECT MIN(observed_ms) FROM (SELECT observed_ms FROM fixes WHERE device_id = ? ORDER BY observed_ms DESC LIMIT ?))
            """, fix.deviceId, fix.deviceId, settings.engine.fixesPerDevice)
        try apply(effects)
    }

    private func expireFixes() throws {
        let now = host.clock.now()
        engine.expireFixes(now: now)
        try host.write { try host.db.run("DELETE FROM fixes WHERE observed_ms < ?", now.milliseconds - Int64(settings.engine.fixRetention * 1000)) }
    }

    // MARK: Bus

    private func consume(_ envelope: Envelope) throws {
        switch envelope.body {
        case .sighting(let sighting):
            consumedSightings += 1
            guard mayLocate(sighting.deviceId) else {
                refusedSightings += 1
                return
            }
            try apply(engine.sighting(sighting))
        case .deviceStatus(let status):
            let purge = AuthorizationPolicy.requiresPurge(authorization: status.authorization, foreground: status.foreground)
            try host.write {
                try host.db.run("""
                    INSERT INTO devices (device_id, authorization, foreground, ranging_available, precise) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(device_id) DO UPDATE SET authorization = excluded.authorization, foreground = excluded.foreground,
                        ranging_available = excluded.ranging_available, precise = excluded.precise
                    """, status.deviceId, status.authorization.rawValue, status.foreground, status.rangingAvailable, status.precise)
                if purge {
                    try self.purge(status)
                } else {
                    try apply(engine.status(deviceId: status.deviceId, rangingAvailable: status.rangingAvailable, at: status.changedAt))
                }
            }
            // Mirror the stored authorization. Should the surrounding transaction roll back, the event
            // is dead-lettered and memory errs on the side of dropping this device's location data.
            if purge {
                withdrawn.insert(status.deviceId)
            } else {
                withdrawn.remove(status.deviceId)
            }
        default:
            throw ServiceError(.unknownType, "region-monitor does not consume \(envelope.type.rawValue) from the bus")
        }
    }

    /// A device whose authorization we know to be withdrawn contributes nothing, even if a
    /// sighting or fix raced its status change.
    private func mayLocate(_ deviceId: String) -> Bool {
        !withdrawn.contains(deviceId)
    }

    /// Drops every piece of location state for a device: each announced record gets a last event
    /// flagged `authorizationDenied`, then records, nearest answer and fixes are deleted.
    private func purge(_ status: DeviceStatus) throws {
        let effects = engine.purge(deviceId: status.deviceId, at: status.changedAt)
        for event in effects.events {
            try host.emit(.regionEvent, topic: Topic.regionEvent(monitor: event.monitor), stream: "region", .region(event))
        }
        try host.db.run("DELETE FROM records WHERE device_id = ?", status.deviceId)
        try host.db.run("DELETE FROM nearest WHERE device_id = ?", status.deviceId)
        try host.db.run("DELETE FROM fixes WHERE device_id = ?", status.deviceId)
        try host.emit(.regionPurged, topic: Topic.regionPurged, stream: "region",
                      .purged(LocationPurged(deviceId: status.deviceId, reason: status.authorization, date: status.changedAt)))
        host.logger.info("location data dropped", ["device.id": status.deviceId, "authorization": status.authorization.rawValue])
    }

    /// Writes every changed record with its event, and changed nearest answers, in one transaction.
    private func apply(_ effects: RegionEffects) throws {
        guard !effects.isEmpty else { return }
        try host.write {
            for event in effects.events {
                try host.db.run("""
                    INSERT INTO records (monitor, identifier, device_id, state, refinement, last_event) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(monitor, identifier, device_id) DO UPDATE SET state = excluded.state, refinement = excluded.refinement,
                        last_event = excluded.last_event
                    """, event.monitor, event.identifier, event.deviceId, event.state.rawValue,
                    event.refinement.map { String(decoding: Wire.encode($0), as: UTF8.self) },
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

    // MARK: Monitor ops

    private func routeMonitorOps() {
        host.router.on(Op.monitorList, Empty.self) { [unowned self] _ in
            MonitorList(monitors: engine.monitorInfos)
        }
        host.router.on(Op.monitorOpen, MonitorOwnership.self) { [unowned self] request in
            try host.write {
                let info = try engine.open(monitor: request.monitor, owner: request.owner)
                try storeMonitor(info)
                return info
            }
        }
        host.router.on(Op.monitorClose, MonitorOwnership.self) { [unowned self] request in
            try host.write {
                let info = try engine.close(monitor: request.monitor, owner: request.owner)
                try storeMonitor(info)
                return info
            }
        }
        host.router.on(Op.monitorAdd, AddCondition.self) { [unowned self] request in
            try host.write {
                let spec = ConditionSpec(monitor: request.monitor, identifier: request.identifier, condition: request.condition,
                                         deviceId: request.deviceId, assuming: request.assuming)
                let (replaced, effects) = try engine.add(spec, owner: request.owner, now: host.clock.now())
                let stored = try engine.spec(monitor: request.monitor, identifier: request.identifier)
                    .map { StoredCondition(condition: $0.condition, deviceId: $0.deviceId, assuming: $0.assuming) }
                    .orThrow(ServiceError(.internalError, "the condition vanished while being added"))
                try host.db.run("DELETE FROM records WHERE monitor = ? AND identifier = ?", request.monitor, request.identifier)
                try host.db.run("""
                    INSERT INTO conditions (monitor, identifier, position, spec) VALUES (?, ?, ?, ?)
                    ON CONFLICT(monitor, identifier) DO UPDATE SET position = excluded.position, spec = excluded.spec
                    """, request.monitor, request.identifier, nextPosition, String(decoding: Wire.encode(stored), as: UTF8.self))
                nextPosition += 1
                try apply(effects)
                host.logger.info("condition added", ["monitor": request.monitor, "identifier": request.identifier, "records.replaced": "\(replaced)"])
                return try monitorRecord(monitor: request.monitor, identifier: request.identifier, deviceId: request.deviceId)
            }
        }
        host.router.on(Op.monitorRemove, RemoveCondition.self) { [unowned self] request in
            try host.write {
                let removed = try engine.remove(monitor: request.monitor, identifier: request.identifier, owner: request.owner)
                try host.db.run("DELETE FROM records WHERE monitor = ? AND identifier = ?", request.monitor, request.identifier)
                try host.db.run("DELETE FROM conditions WHERE monitor = ? AND identifier = ?", request.monitor, request.identifier)
                return RemovedCondition(monitor: request.monitor, identifier: request.identifier, recordsRemoved: removed)
            }
        }
        host.router.on(Op.monitorIdentifiers, MonitorQuery.self) { [unowned self] query in
            guard let identifiers = engine.identifiers(monitor: query.monitor) else { throw unknownMonitor(query.monitor) }
            return MonitorIdentifiers(monitor: query.monitor, identifiers: identifiers)
        }
        host.router.on(Op.monitorRecord, RecordQuery.self) { [unowned self] query in
            try monitorRecord(monitor: query.monitor, identifier: query.identifier, deviceId: query.deviceId)
        }
    }

    private func storeMonitor(_ info: MonitorInfo) throws {
        try host.db.run("INSERT INTO monitors (name, owner) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET owner = excluded.owner",
                        info.monitor, info.owner)
    }

    private func unknownMonitor(_ name: String) -> ServiceError {
        ServiceError(.unknownMonitor, "no monitor named \"\(name.prefix(64))\"; monitor.list shows them")
    }

    private func monitorRecord(monitor: String, identifier: String, deviceId: String?) throws -> MonitorRecord {
        guard engine.info(monitor) != nil else { throw unknownMonitor(monitor) }
        guard let spec = engine.spec(monitor: monitor, identifier: identifier) else {
            throw ServiceError(.unknownCondition, "monitor \(monitor) has no condition \"\(identifier.prefix(64))\"")
        }
        if let deviceId { try ConditionRules.validateDeviceID(deviceId) }
        if let deviceId, let only = spec.deviceId, only != deviceId {
            throw ServiceError(.invalidField, "condition \(identifier) applies to device \(only) only")
        }
        let device = deviceId ?? spec.deviceId
        let lastEvent = device.flatMap { engine.record(monitor: monitor, identifier: identifier, deviceId: $0)?.lastEvent }
        return MonitorRecord(identifier: identifier, condition: spec.condition, deviceId: spec.deviceId, assuming: spec.assuming, lastEvent: lastEvent)
    }

    // MARK: Location ops

    private func routeLocationOps() {
        host.router.on(Op.nearestGet, DeviceQuery.self) { [unowned self] query in
            try ConditionRules.validateDeviceID(query.deviceId)
            let now = host.clock.now()
            let nearest = mayLocate(query.deviceId) ? engine.nearestBeacon(deviceId: query.deviceId) : nil
            let cafe = nearest?.beacon.flatMap { catalog.cafe(major: $0.major) }
            let station = nearest?.beacon.flatMap { beacon in cafe?.station(minor: beacon.minor) }
            let places = catalog.cafes.map { (id: $0.id, latitude: $0.latitude, longitude: $0.longitude) }
            return NearestAnswer(deviceId: query.deviceId, beacon: nearest?.beacon, proximity: nearest?.proximity, cafeId: cafe?.id, stationId: station?.id,
                                 cafesByDistance: mayLocate(query.deviceId) ? engine.placesByDistance(deviceId: query.deviceId, places: places, now: now) : [],
                                 date: nearest?.date ?? now)
        }
        host.router.on(Op.locationConfirm, ConfirmLocation.self) { [unowned self] request in
            try confirm(request)
        }
    }

    /// "Was this code acquired inside region R?" yes / no / disallowed, never a position.
    private func confirm(_ request: ConfirmLocation) throws -> LocationConfirmation {
        try ConditionRules.validateDeviceID(request.deviceId)
        guard !request.code.isEmpty, request.code.utf8.count <= 2048 else { throw ServiceError(.invalidField, "code must be the code's URL, 1–2048 bytes") }
        let region: ConfirmRegion
        switch (request.cafeId, request.region) {
        case (let id?, nil):
            guard let cafe = catalog.cafe(id) else { throw ServiceError(.unknownCafe, "no café \"\(id.prefix(64))\" on this campus") }
            region = ConfirmRegion(latitude: cafe.latitude, longitude: cafe.longitude, radius: cafe.confirmationRadius)
        case (nil, let given?):
            region = given
        default:
            throw ServiceError(.invalidField, "give either cafeId or region, not both or neither")
        }
        guard region.latitude.isFinite, (-90...90).contains(region.latitude), region.longitude.isFinite, (-180...180).contains(region.longitude) else {
            throw ServiceError(.invalidField, "region center must be a latitude in -90…90 and a longitude in -180…180")
        }
        guard region.radius.isFinite, region.radius > 0 else { throw ServiceError(.invalidField, "region radius must be more than 0 m") }
        guard region.radius <= 500 else { throw ServiceError(.regionTooLarge, "a confirmation region is at most 500 m across its radius, not \(Int(region.radius)) m") }
        let now = host.clock.now()
        guard request.acquiredAt.seconds(since: now) <= 60 else { throw ServiceError(.invalidField, "acquiredAt is in the future") }

        let answer: LocationConfirmation
        if !mayLocate(request.deviceId) {
            answer = LocationConfirmation(deviceId: request.deviceId, code: request.code, result: .disallowed, reason: .authorizationDenied)
        } else if try approximateOnly(request.deviceId) {
            answer = LocationConfirmation(deviceId: request.deviceId, code: request.code, result: .disallowed, reason: .approximateOnly)
        } else {
            let (result, reason) = engine.confirm(deviceId: request.deviceId, latitude: region.latitude, longitude: region.longitude,
                                                  radius: region.radius, acquiredAt: request.acquiredAt)
            answer = LocationConfirmation(deviceId: request.deviceId, code: request.code, result: result, reason: reason)
        }
        confirmations += 1
        host.logger.info("location confirmed", ["device.id": request.deviceId, "code": String(request.code.prefix(200)),
                                                "result": answer.result.rawValue, "reason": answer.reason?.rawValue ?? ""])
        return answer
    }

    private func approximateOnly(_ deviceId: String) throws -> Bool {
        guard let row = try host.db.query("SELECT precise FROM devices WHERE device_id = ?", deviceId).first else { return false }
        return !row.bool("precise")
    }
}

extension Optional {
    func orThrow(_ error: @autoclosure () -> some Error) throws -> Wrapped {
        guard let value = self else { throw error() }
        return value
    }
}
