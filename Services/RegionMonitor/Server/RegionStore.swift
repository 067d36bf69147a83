import Foundation
import Messages
import RegionMonitorCore
import SQLite

/// Every row region-monitor keeps, and all of its SQL: monitors and conditions opened through
/// the request socket, each record's last event, nearest answers, device statuses and recent
/// fixes. Rows are mapped to values here and nowhere else; the service decides (through the
/// engine) what to write, and writes it inside its own transactions.
final class RegionStore {
    let db: Database
    /// The position the next condition is stored at, so a restore adds conditions in the order
    /// they were added (events of one device come out in that order).
    private var nextPosition = 0

    init(db: Database) {
        self.db = db
    }

    /// Creates or upgrades the schema (`RegionStore+Schema.swift`).
    func migrate() throws {
        try db.migrate("region-monitor", Self.migrations)
    }

    // MARK: Restore

    /// A monitor opened through the request socket.
    struct StoredMonitor {
        var name: String
        var owner: String?
    }

    /// A condition as stored: everything of `monitor.add` but the owner (the `conditions.spec` JSON).
    struct StoredCondition: Codable {
        var condition: Condition
        var deviceId: String?
        var assuming: ConditionState?
    }

    /// A device's last status, as far as the engine needs it after a restart.
    struct StoredDevice {
        var deviceId: String
        /// Nil when the stored text is no authorization this build knows.
        var authorization: Authorization?
        var foreground: Bool
        var rangingAvailable: Bool
        var precise: Bool
    }

    /// A record: its key, its last announced event and (satisfied beacon records) its last
    /// matching sighting as last saved.
    struct StoredRecord {
        /// The device's storage number: with the monitor and identifier, the row's key.
        var number: UInt32
        var monitor: String
        var identifier: String
        var deviceId: String
        var lastEvent: RegionEvent?
        var lastSeen: Timestamp?
        /// The state it was last decided in, kept through `unknown`; nil while never decided.
        var decided: ConditionState?
    }

    /// A record's key: its device's storage number, its monitor and identifier.
    struct StoredRecordKey {
        var number: UInt32
        var monitor: String
        var identifier: String
    }

    func monitors() throws -> [StoredMonitor] {
        try db.query("SELECT name, owner FROM monitors ORDER BY name").map { StoredMonitor(name: $0.string("name"), owner: $0.optionalString("owner")) }
    }

    /// Conditions in the order they were added.
    func conditions() throws -> [ConditionSpec] {
        try db.query("SELECT monitor, identifier, position, spec FROM conditions ORDER BY position").map { row in
            let stored = try JSONDecoder().decode(StoredCondition.self, from: Data(row.string("spec").utf8))
            nextPosition = max(nextPosition, Int(row.int64("position")) + 1)
            return ConditionSpec(monitor: row.string("monitor"), identifier: row.string("identifier"), condition: stored.condition,
                                 deviceId: stored.deviceId, assuming: stored.assuming)
        }
    }

    /// About how many devices a restore brings back: those with a status or a nearest answer,
    /// whichever is more (counting the union would cost a pass over both).
    func restoredDeviceEstimate() throws -> Int {
        let row = try db.query("SELECT (SELECT COUNT(*) FROM devices) AS d, (SELECT COUNT(*) FROM nearest) AS n").first
        return max(row?.int("d") ?? 0, row?.int("n") ?? 0)
    }

    /// Every device's status, handed to `body` as it is read (nothing kept: 10⁶ at a restart).
    func forEachDevice(_ body: (StoredDevice) throws -> Void) throws {
        try db.forEachRow("SELECT device_id, authorization, foreground, ranging_available, precise FROM devices") { row in
            try body(StoredDevice(deviceId: row.string(0), authorization: row.optionalString(1).flatMap(Authorization.init(rawValue:)),
                                  foreground: row.int64(2) != 0, rangingAvailable: row.int64(3) != 0, precise: row.int64(4) != 0))
        }
    }

    func records() throws -> [StoredRecord] {
        var records: [StoredRecord] = []
        try forEachRecord { records.append($0) }
        return records
    }

    /// Every record, handed to `body` as it is read (nothing kept), its last event made from the
    /// row's columns, or read from its JSON in a row written before migration 6.
    func forEachRecord(_ body: (StoredRecord) throws -> Void) throws {
        // Refinements name a handful of beacon UUIDs: the last one's text is reused while it repeats.
        var lastUUID = ""
        try db.forEachRow("""
            SELECT monitor, identifier, device_id, state, event_ms, flags, refinement_uuid, refinement_major, refinement_minor,
                last_seen_ms, decided, last_event, number FROM records
            """) { row in
            let monitor = row.string(0), identifier = row.string(1), deviceId = row.string(2)
            var lastEvent: RegionEvent?
            if row.isNull(4) {
                lastEvent = try row.withText(11) { try Self.decode(RegionEvent.self, $0) }
            } else if let state = ConditionState(rawValue: row.string(3)), let eventMs = row.optionalInt64(4) {
                let flags = row.optionalString(5).map { Self.flags($0) } ?? []
                var refinement: BeaconIdentity?
                if let major = row.optionalInt64(7), let minor = row.optionalInt64(8), let repeated = row.withText(6, { Self.same($0, lastUUID) }) {
                    if !repeated { lastUUID = row.string(6) }
                    refinement = BeaconIdentity(uuid: lastUUID, major: Int(major), minor: Int(minor))
                }
                lastEvent = RegionEvent(monitor: monitor, identifier: identifier, deviceId: deviceId, state: state, refinement: refinement,
                                        flags: flags, date: Timestamp(milliseconds: eventMs))
            }
            try body(StoredRecord(number: UInt32(truncatingIfNeeded: row.int64(12)), monitor: monitor, identifier: identifier, deviceId: deviceId, lastEvent: lastEvent,
                                  lastSeen: row.optionalInt64(9).map(Timestamp.init(milliseconds:)),
                                  decided: row.optionalString(10).flatMap(ConditionState.init(rawValue:))))
        }
    }

    /// Whether stored text is `text`, compared as bytes.
    static func same(_ bytes: UnsafeRawBufferPointer, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { $0.count == bytes.count && ($0.isEmpty || memcmp($0.baseAddress!, bytes.baseAddress!, $0.count) == 0) }
    }

    /// Event flags as stored: their names joined by commas (a name this build does not know is left out).
    static func flags(_ text: String) -> [EventFlag] {
        text.split(separator: ",").compactMap { EventFlag(rawValue: String($0)) }
    }

    /// The highest storage number any row has (0: none): a restore gives none at or below it again.
    func highestNumber() throws -> UInt32 {
        let row = try db.query("SELECT MAX(COALESCE((SELECT MAX(number) FROM records), 0), COALESCE((SELECT MAX(number) FROM nearest), 0)) AS n").first
        return UInt32(truncatingIfNeeded: row?.int64("n") ?? 0)
    }

    /// Nearest beacons as last announced (a cleared one has no row) with their device's storage
    /// number, handed to `body` as read.
    func forEachNearest(_ body: (UInt32, NearestBeacon) throws -> Void) throws {
        try db.forEachRow("SELECT value, number FROM nearest") { row in
            // `value` is NOT NULL; a NULL one is a damaged row, refused as a malformed one is.
            guard let answer = try row.withText(0, { try Self.decode(NearestBeacon.self, $0) }) else {
                throw WireError(.messageMalformed, "a stored nearest answer has no value")
            }
            try body(UInt32(truncatingIfNeeded: row.int64(1)), answer)
        }
    }

    /// Stored JSON by the hand-written reader (what a restart with 10⁶ devices reads twice per
    /// device), Foundation's decoder when the reader gives up.
    static func decode<T: Decodable>(_ type: T.Type, _ json: UnsafeRawBufferPointer) throws -> T {
        // The row's bytes, not copied: valid while the row is.
        let data = json.baseAddress.map { Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: $0), count: json.count, deallocator: .none) } ?? Data()
        return try Wire.decode(T.self, from: data, maxBytes: .max, tooLarge: .messageTooLarge, malformed: .messageMalformed)
    }

    /// Fixes by device, oldest first.
    func fixes() throws -> [LocationFix] {
        try db.query("SELECT * FROM fixes ORDER BY device_id, observed_ms").map {
            LocationFix(deviceId: $0.string("device_id"), latitude: $0.double("latitude"), longitude: $0.double("longitude"),
                        horizontalAccuracy: $0.double("horizontal_accuracy"), precise: $0.bool("precise"),
                        observedAt: Timestamp(milliseconds: $0.int64("observed_ms")))
        }
    }

    // MARK: Monitors and conditions

    func saveMonitor(_ info: MonitorInfo) throws {
        try db.run("INSERT INTO monitors (name, owner) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET owner = excluded.owner", info.monitor, info.owner)
    }

    /// Stores a condition after every other, replacing one under its identifier; the records of
    /// the one replaced go with it. Records are keyed by device number first (migration 8), so
    /// deleting a condition's records reads the whole table: a condition replaced or removed is
    /// rare, a first-seen device is not.
    func saveCondition(_ spec: ConditionSpec) throws {
        let stored = StoredCondition(condition: spec.condition, deviceId: spec.deviceId, assuming: spec.assuming)
        try db.run("DELETE FROM records WHERE monitor = ? AND identifier = ?", spec.monitor, spec.identifier)
        try db.run("""
            INSERT INTO conditions (monitor, identifier, position, spec) VALUES (?, ?, ?, ?)
            ON CONFLICT(monitor, identifier) DO UPDATE SET position = excluded.position, spec = excluded.spec
            """, spec.monitor, spec.identifier, nextPosition, String(decoding: Wire.encode(stored), as: UTF8.self))
        nextPosition += 1
    }

    /// Deletes a condition with every record of it.
    func deleteCondition(monitor: String, identifier: String) throws {
        try db.run("DELETE FROM records WHERE monitor = ? AND identifier = ?", monitor, identifier)
        try db.run("DELETE FROM conditions WHERE monitor = ? AND identifier = ?", monitor, identifier)
    }

    // MARK: Records and nearest answers

    /// Stores a record as its event left it: the event is the row's key, state, date, flags and
    /// refinement. A satisfied event's date is its record's last matching sighting until a later
    /// one is saved. An `unknown` event keeps the state the record was last decided in.
    /// `number` is the device's storage number (`RegionEngine.storageNumber`).
    func saveRecord(_ event: RegionEvent, number: UInt32) throws {
        let lastSeen: Int64? = event.state == .satisfied ? event.date.milliseconds : nil
        let decided: String? = event.state == .unknown ? nil : event.state.rawValue
        let flags: String? = event.flags.isEmpty ? nil : event.flags.map(\.rawValue).joined(separator: ",")
        let refinement = event.refinement
        try db.run("""
            INSERT INTO records (number, monitor, identifier, device_id, state, event_ms, flags, refinement_uuid, refinement_major,
                refinement_minor, last_seen_ms, decided) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(number, monitor, identifier) DO UPDATE SET state = excluded.state, last_event = NULL, event_ms = excluded.event_ms,
                flags = excluded.flags, refinement_uuid = excluded.refinement_uuid, refinement_major = excluded.refinement_major,
                refinement_minor = excluded.refinement_minor,
                last_seen_ms = COALESCE(excluded.last_seen_ms, last_seen_ms), decided = COALESCE(excluded.decided, decided)
            """, Int64(number), event.monitor, event.identifier, event.deviceId, event.state.rawValue, event.date.milliseconds, flags,
                   refinement?.uuid, refinement.map { Int64($0.major) }, refinement.map { Int64($0.minor) }, lastSeen, decided)
    }

    /// Saves satisfied records' last matching sightings (a batch from the engine, one transaction).
    func saveSightingTimes(_ times: [SightingTime]) throws {
        for time in times {
            try db.run("UPDATE records SET last_seen_ms = ? WHERE number = ? AND monitor = ? AND identifier = ? AND state = 'satisfied'",
                       time.lastSeen.milliseconds, Int64(time.number), time.monitor, time.identifier)
        }
    }

    func deleteRecord(number: UInt32, monitor: String, identifier: String) throws {
        try db.run("DELETE FROM records WHERE number = ? AND monitor = ? AND identifier = ?", Int64(number), monitor, identifier)
    }

    /// Moves a record stored under another number than its device's to the device's (replacing
    /// one there): rows of one device under two numbers, found by a restore.
    func moveRecord(from old: UInt32, to new: UInt32, monitor: String, identifier: String) throws {
        try db.run("UPDATE OR REPLACE records SET number = ? WHERE number = ? AND monitor = ? AND identifier = ?",
                   Int64(new), Int64(old), monitor, identifier)
    }

    /// Stores a device's nearest beacon as its event carried it (`json`) under the device's
    /// storage number; a cleared one (no beacon) deletes its row.
    func saveNearest(_ value: NearestBeacon, number: UInt32, json: Data) throws {
        if value.beacon == nil {
            try db.run("DELETE FROM nearest WHERE number = ?", Int64(number))
        } else {
            try db.run("INSERT INTO nearest (number, value) VALUES (?, ?) ON CONFLICT(number) DO UPDATE SET value = excluded.value",
                       Int64(number), String(decoding: json, as: UTF8.self))
        }
    }

    /// Moves a nearest answer to its device's number (as `moveRecord`).
    func moveNearest(from old: UInt32, to new: UInt32) throws {
        try db.run("UPDATE OR REPLACE nearest SET number = ? WHERE number = ?", Int64(new), Int64(old))
    }

    // MARK: Devices and fixes

    func saveDevice(_ status: DeviceStatus) throws {
        try db.run("""
            INSERT INTO devices (device_id, authorization, foreground, ranging_available, precise) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(device_id) DO UPDATE SET authorization = excluded.authorization, foreground = excluded.foreground,
                ranging_available = excluded.ranging_available, precise = excluded.precise
            """, status.deviceId, status.authorization.rawValue, status.foreground, status.rangingAvailable, status.precise)
    }

    /// Stores a fix (one per device and instant), keeping the device's newest `keeping`.
    func saveFix(_ fix: LocationFix, keeping: Int) throws {
        try db.run("""
            INSERT INTO fixes (device_id, observed_ms, latitude, longitude, horizontal_accuracy, precise) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(device_id, observed_ms) DO UPDATE SET latitude = excluded.latitude, longitude = excluded.longitude,
                horizontal_accuracy = excluded.horizontal_accuracy, precise = excluded.precise
            """, fix.deviceId, fix.observedAt.milliseconds, fix.latitude, fix.longitude, fix.horizontalAccuracy, fix.precise)
        try db.run("""
            DELETE FROM fixes WHERE device_id = ? AND observed_ms < (
                SELECT MIN(observed_ms) FROM (SELECT observed_ms FROM fixes WHERE device_id = ? ORDER BY observed_ms DESC LIMIT ?))
            """, fix.deviceId, fix.deviceId, keeping)
    }

    /// Deletes every fix observed before `cutoff` (milliseconds since the epoch).
    func deleteFixes(before cutoff: Int64) throws {
        try db.run("DELETE FROM fixes WHERE observed_ms < ?", cutoff)
    }

    /// Deletes up to `limit` fixes observed before `cutoff`, oldest first, in a transaction of
    /// their own (through the `fixes_time` index); returns how many.
    func deleteFixes(before cutoff: Int64, limit: Int) throws -> Int {
        try db.transaction {
            try db.run("""
                DELETE FROM fixes WHERE (device_id, observed_ms) IN
                  (SELECT device_id, observed_ms FROM fixes WHERE observed_ms < ? ORDER BY observed_ms LIMIT ?)
                """, cutoff, limit)
            return db.changes
        }
    }

    /// Deletes every piece of a device's location: records and nearest answer (by its storage
    /// number, the leading part of their keys; 0 when nothing of it was stored) and fixes. Its
    /// status row stays: it is what says the authorization is withdrawn.
    func deleteLocation(deviceId: String, number: UInt32) throws {
        if number != 0 {
            try db.run("DELETE FROM records WHERE number = ?", Int64(number))
            try db.run("DELETE FROM nearest WHERE number = ?", Int64(number))
        }
        try db.run("DELETE FROM fixes WHERE device_id = ?", deviceId)
    }
}
