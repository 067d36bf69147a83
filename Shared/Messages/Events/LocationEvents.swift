/// Location authorization as the phone reports it (Core Location's `CLAuthorizationStatus`,
/// plus the one-time grant a Location Button tap or "Allow Once" gives).
public enum Authorization: String, Codable, Sendable, CaseIterable {
    case notDetermined, restricted, denied, whenInUse, always, allowOnce
}

/// How near a ranged beacon is, as `CLProximity` classifies it.
public enum Proximity: String, Codable, Sendable, CaseIterable, Comparable {
    case immediate, near, far, unknown

    private var rank: Int {
        switch self {
        case .immediate: 0
        case .near: 1
        case .far: 2
        case .unknown: 3
        }
    }

    public static func < (a: Proximity, b: Proximity) -> Bool { a.rank < b.rank }

    /// Near and immediate beacons may choose a café or station; far and unknown never do.
    public var decidesPlace: Bool { self == .immediate || self == .near }
}

/// A beacon's identity: proximity UUID (the company), major (the café), minor (the station).
public struct BeaconIdentity: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Upper-case canonical UUID text.
    public var uuid: String
    public var major: Int
    public var minor: Int

    public init(uuid: String, major: Int, minor: Int) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    public var description: String { "\(uuid)/\(major)/\(minor)" }

    /// What a major or a minor may be: iBeacon numbers are 16 bits.
    public static let numberRange = 0...65535

    enum CodingKeys: String, CodingKey { case uuid, major, minor }

    /// Major and minor within `numberRange`: region-monitor keeps them in 16 bits.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uuid = try c.decode(String.self, forKey: .uuid)
        major = try c.decode(Int.self, forKey: .major, in: Self.numberRange)
        minor = try c.decode(Int.self, forKey: .minor, in: Self.numberRange)
    }
}

/// `sighting.reported` on `sighting.<shard>.`: one smoothed ranging result for a device.
/// Best-effort: may be shed under overload, counted.
public struct Sighting: Codable, Sendable, Equatable {
    public var deviceId: String
    public var beacon: BeaconIdentity
    /// RSSI after smoothing, dBm.
    public var rssi: Int
    /// The beacon's calibrated RSSI at 1 m.
    public var measuredPower: Int
    /// Estimated distance in metres (`CLBeacon.accuracy`); -1 when unknown.
    public var accuracy: Double
    public var proximity: Proximity
    public var observedAt: Timestamp
    /// The evidence for the nearest café: the mean of the readings of this beacon that
    /// beacon-ingest holds over its evidence window (`--evidence-seconds`), dBm to 0.1, and how
    /// many readings that mean is of. Both nil when no readable reading is held (or from a sender
    /// that does not keep them); region-monitor then counts the sighting as one reading of `rssi`.
    public var meanRssi: Double?
    public var readings: Int?

    public init(deviceId: String, beacon: BeaconIdentity, rssi: Int, measuredPower: Int, accuracy: Double, proximity: Proximity, observedAt: Timestamp,
                meanRssi: Double? = nil, readings: Int? = nil) {
        self.deviceId = deviceId
        self.beacon = beacon
        self.rssi = rssi
        self.measuredPower = measuredPower
        self.accuracy = accuracy
        self.proximity = proximity
        self.observedAt = observedAt
        self.meanRssi = meanRssi
        self.readings = readings
    }

    /// RSSI in dBm as `CLBeacon` reports it (0: unreadable), and so as beacon-ingest accepts it.
    public static let rssiRange = -127...0
    /// The beacon's calibrated RSSI at 1 m, as beacon-ingest accepts it.
    public static let measuredPowerRange = -127 ... -1
    /// The readings one evidence mean may be of.
    public static let readingsRange = 1...1_000

    /// Whether an evidence pair is well formed: both absent, or a mean in `rssiRange` of readings in `readingsRange`.
    public static func validEvidence(_ mean: Double?, _ readings: Int?) -> Bool {
        switch (mean, readings) {
        case (nil, nil): true
        case (let mean?, let readings?): mean.isFinite && mean >= Double(rssiRange.lowerBound) && mean <= 0 && readingsRange.contains(readings)
        default: false
        }
    }

    enum CodingKeys: String, CodingKey { case deviceId, beacon, rssi, measuredPower, accuracy, proximity, observedAt, meanRssi, readings }

/// `rssi` and `measuredPower` within their ranges.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        deviceId = try c.decode(String.self, forKey: .deviceId)
        beacon = try c.decode(BeaconIdentity.self, forKey: .beacon)
        rssi = try c.decode(Int.self, forKey: .rssi, in: Self.rssiRange)
        measuredPower = try c.decode(Int.self, forKey: .measuredPower, in: Self.measuredPowerRange)
        accuracy = try c.decode(Double.self, forKey: .accuracy)
        proximity = try c.decode(Proximity.self, forKey: .proximity)
        observedAt = try c.decode(Timestamp.self, forKey: .observedAt)
        meanRssi = try c.decodeIfPresent(Double.self, forKey: .meanRssi)
        readings = try c.decodeIfPresent(Int.self, forKey: .readings, in: Self.readingsRange)
        guard Self.validEvidence(meanRssi, readings) else {
            throw DecodingError.dataCorruptedError(forKey: .meanRssi, in: c, debugDescription: "meanRssi (\(Self.rssiRange.lowerBound)…0) and readings come together")
        }
    }
}

/// `sighting.batch` on `sighting.<shard>.`: the sightings of one `ingest.batch` (or report) for
/// one shard, in the order beacon-ingest took them, at most `maxCount` per message. The form
/// beacon-ingest publishes: one bus message per batch, not per sighting, costs a fraction of the
/// framing, socket and envelope work. Best-effort like a single `sighting.reported`.
public struct SightingBatch: Codable, Sendable, Equatable {
    public var sightings: [Sighting]

    /// The most sightings one message carries (about 80 KB of JSON).
    public static let maxCount = 256

    public init(sightings: [Sighting]) {
        self.sightings = sightings
    }

    enum CodingKeys: String, CodingKey { case sightings }

    /// 1…`maxCount` sightings.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        sightings = try c.decode([Sighting].self, forKey: .sightings)
        guard (1...Self.maxCount).contains(sightings.count) else {
            throw DecodingError.dataCorruptedError(forKey: .sightings, in: c,
                                                   debugDescription: "a sighting batch carries 1…\(Self.maxCount) sightings, not \(sightings.count)")
        }
    }
}

/// `location.fix` on `location.<shard>.`: a position, for region-monitor only.
/// Coordinates go no further than region-monitor: nothing it publishes carries them.
public struct LocationFix: Codable, Sendable, Equatable {
    public var deviceId: String
    public var latitude: Double
    public var longitude: Double
    /// Radius of uncertainty in metres.
    public var horizontalAccuracy: Double
    /// False when the user granted approximate location only.
    public var precise: Bool
    public var observedAt: Timestamp

    public init(deviceId: String, latitude: Double, longitude: Double, horizontalAccuracy: Double, precise: Bool, observedAt: Timestamp) {
        self.deviceId = deviceId
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.precise = precise
        self.observedAt = observedAt
    }
}

/// `device.status` on `device.<shard>.`: a device's authorization and capabilities changed.
/// Durable: a withdrawal must reach region-monitor so it drops the device's location data.
public struct DeviceStatus: Codable, Sendable, Equatable {
    public var deviceId: String
    public var authorization: Authorization
    public var foreground: Bool
    public var precise: Bool
    public var monitoringAvailable: Bool
    public var rangingAvailable: Bool
    public var changedAt: Timestamp

    public init(deviceId: String, authorization: Authorization, foreground: Bool, precise: Bool, monitoringAvailable: Bool, rangingAvailable: Bool, changedAt: Timestamp) {
        self.deviceId = deviceId
        self.authorization = authorization
        self.foreground = foreground
        self.precise = precise
        self.monitoringAvailable = monitoringAvailable
        self.rangingAvailable = rangingAvailable
        self.changedAt = changedAt
    }
}
