import Messages
import SQLite

/// beacon-ingest's SQL, all of it: the devices table (each device's last reported status) and
/// its schema. A row maps to a `DeviceStatus` here and nowhere else.
public struct IngestStore {
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

    let db: Database

    /// A store on the service's database (call `migrate()` before using it).
    public init(db: Database) { self.db = db }

    /// Brings the schema up to date.
    public func migrate() throws {
        try db.migrate("beacon-ingest", Self.migrations)
    }

    /// The device's stored status; nil for a device never seen (or stored with an authorization
    /// this version does not know).
    public func status(of deviceId: String) throws -> DeviceStatus? {
        guard let row = try db.query("SELECT * FROM devices WHERE device_id = ?", deviceId).first,
              let authorization = Authorization(rawValue: row.string("authorization"))
        else { return nil }
        return DeviceStatus(deviceId: deviceId, authorization: authorization, foreground: row.bool("foreground"), precise: row.bool("precise"),
                            monitoringAvailable: row.bool("monitoring_available"), rangingAvailable: row.bool("ranging_available"),
                            changedAt: Timestamp(milliseconds: row.int64("changed_ms")))
    }

    /// Stores the device's new status, replacing the old.
    public func save(_ status: DeviceStatus) throws {
        try db.run("""
            INSERT INTO devices (device_id, authorization, foreground, precise, monitoring_available, ranging_available, changed_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(device_id) DO UPDATE SET authorization = excluded.authorization, foreground = excluded.foreground,
                precise = excluded.precise, monitoring_available = excluded.monitoring_available,
                ranging_available = excluded.ranging_available, changed_ms = excluded.changed_ms
            """, status.deviceId, status.authorization.rawValue, status.foreground, status.precise,
            status.monitoringAvailable, status.rangingAvailable, status.changedAt.milliseconds)
    }
}
