import Messages
import OrderCore
import SQLite

/// What order-service knows of a customer for their menu: the default-location preference, the
/// device's nearest beacon (from region events) and the café they used last.
extension OrderStore {
    func preference(of userId: String) throws -> LocationPreference {
        guard let row = try db.query("SELECT kind, cafe_id FROM preferences WHERE user_id = ?", userId).first else { return .closestToMe }
        if row.string("kind") == "cafe", let id = row.optionalString("cafe_id") { return .cafe(id) }
        return .closestToMe
    }

    func setPreference(_ preference: LocationPreference, of userId: String) throws {
        let cafeId: String? = if case .cafe(let id) = preference { id } else { nil }
        try db.run("INSERT INTO preferences (user_id, kind, cafe_id) VALUES (?, ?, ?) ON CONFLICT(user_id) DO UPDATE SET kind = excluded.kind, cafe_id = excluded.cafe_id",
                   userId, cafeId == nil ? "closestToMe" : "cafe", cafeId)
    }

    /// The major of the device's nearest near/immediate beacon, if region-monitor reported one.
    func nearestBeaconMajor(deviceId: String) throws -> Int? {
        try db.query("SELECT major FROM device_nearest WHERE device_id = ?", deviceId).first?.int("major")
    }

    func setNearest(deviceId: String, beacon: BeaconIdentity, at: Timestamp) throws {
        try db.run("INSERT INTO device_nearest (device_id, major, minor, at_ms) VALUES (?, ?, ?, ?) ON CONFLICT(device_id) DO UPDATE SET major = excluded.major, minor = excluded.minor, at_ms = excluded.at_ms",
                   deviceId, beacon.major, beacon.minor, at.milliseconds)
    }

    /// Forgets the device's nearest beacon (none near, or location authorization withdrawn).
    func clearNearest(deviceId: String) throws {
        try db.run("DELETE FROM device_nearest WHERE device_id = ?", deviceId)
    }

    func lastCafe(of userId: String) throws -> String? {
        try db.query("SELECT cafe_id FROM last_cafe WHERE user_id = ?", userId).first?.string("cafe_id")
    }

    func remember(_ last: LastCafe) throws {
        let upsert = "INSERT INTO last_cafe (user_id, cafe_id, at_ms) VALUES (?, ?, ?) ON CONFLICT(user_id) DO UPDATE SET cafe_id = excluded.cafe_id, at_ms = excluded.at_ms"
        try db.run(last.keepsNewer ? upsert + " WHERE excluded.at_ms >= last_cafe.at_ms" : upsert, last.userId, last.cafeId, last.at.milliseconds)
    }

    /// When region-monitor decided the device outside the café's approach area, if that is its
    /// latest word on it (`device_away`); nil when it is inside, unknown or never decided.
    func awayAt(deviceId: String, cafeId: String) throws -> Timestamp? {
        try db.query("SELECT at_ms FROM device_away WHERE device_id = ? AND cafe_id = ?", deviceId, cafeId).first
            .map { Timestamp(milliseconds: $0.int64("at_ms")) }
    }

    /// Records the device outside the café's approach area since `at`, or (nil) forgets it.
    func setAway(deviceId: String, cafeId: String, at: Timestamp?) throws {
        if let at {
            try db.run("INSERT INTO device_away (device_id, cafe_id, at_ms) VALUES (?, ?, ?) ON CONFLICT(device_id, cafe_id) DO UPDATE SET at_ms = excluded.at_ms",
                       deviceId, cafeId, at.milliseconds)
        } else {
            try db.run("DELETE FROM device_away WHERE device_id = ? AND cafe_id = ?", deviceId, cafeId)
        }
    }

    /// Forgets every approach decision of the device (location authorization withdrawn).
    func clearAway(deviceId: String) throws {
        try db.run("DELETE FROM device_away WHERE device_id = ?", deviceId)
    }
}
