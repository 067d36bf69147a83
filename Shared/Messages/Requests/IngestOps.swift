/// `ingest.report` to beacon-ingest: what one phone saw since its last report.
public struct IngestReport: Codable, Sendable, Equatable {
    /// The reporting device; a phone may leave its own out (it is taken from its key).
    public var deviceId: String?
    /// The device's current authorization and capabilities; required on a device's first report.
    public var status: DeviceStatusReport?
    public var sightings: [RangingReport]?
    public var fixes: [FixReport]?

    public init(deviceId: String?, status: DeviceStatusReport? = nil, sightings: [RangingReport]? = nil, fixes: [FixReport]? = nil) {
        self.deviceId = deviceId
        self.status = status
        self.sightings = sightings
        self.fixes = fixes
    }
}

/// A device's authorization and capabilities as it reports them.
public struct DeviceStatusReport: Codable, Sendable, Equatable {
    public var authorization: Authorization
    public var foreground: Bool
    public var precise: Bool
    public var monitoringAvailable: Bool
    public var rangingAvailable: Bool

    public init(authorization: Authorization, foreground: Bool, precise: Bool = true, monitoringAvailable: Bool = true, rangingAvailable: Bool = true) {
        self.authorization = authorization
        self.foreground = foreground
        self.precise = precise
        self.monitoringAvailable = monitoringAvailable
        self.rangingAvailable = rangingAvailable
    }
}

/// One raw ranging result, as `CLBeacon` delivers it.
///
/// `proximity` and `accuracy` are the phone's own estimate and are optional: older clients and
/// gateways send neither. beacon-ingest's estimate from the smoothed RSSI decides the sighting's
/// proximity and accuracy; the phone's values stand in only when the server has no usable RSSI
/// for the beacon (every reading in the smoothing window was 0, "unreadable").
public struct RangingReport: Codable, Sendable, Equatable {
    public var uuid: String
    public var major: Int
    public var minor: Int
    public var rssi: Int
    public var measuredPower: Int
    public var timestamp: Timestamp
    /// The phone's proximity class (`CLBeacon.proximity`), when it sends one.
    public var proximity: Proximity? {
        didSet { unrecognizedProximity = nil }
    }
    /// The phone's distance estimate in metres (`CLBeacon.accuracy`), when it sends one; -1 is
    /// Core Location's "unknown" and goes only with proximity `unknown`.
    public var accuracy: Double?
    /// A `proximity` text this build does not know, kept as sent (and `proximity` left nil).
    /// Decoding does not refuse it, so that only this item is refused, by the validator, with
    /// its index, instead of the whole request. Setting `proximity` clears it.
    public internal(set) var unrecognizedProximity: String?

    public init(uuid: String, major: Int, minor: Int, rssi: Int, measuredPower: Int, timestamp: Timestamp,
                proximity: Proximity? = nil, accuracy: Double? = nil) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.rssi = rssi
        self.measuredPower = measuredPower
        self.timestamp = timestamp
        self.proximity = proximity
        self.accuracy = accuracy
    }

    enum CodingKeys: String, CodingKey {
        case uuid, major, minor, rssi, measuredPower, timestamp, proximity, accuracy
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        uuid = try container.decode(String.self, forKey: .uuid)
        major = try container.decode(Int.self, forKey: .major)
        minor = try container.decode(Int.self, forKey: .minor)
        rssi = try container.decode(Int.self, forKey: .rssi)
        measuredPower = try container.decode(Int.self, forKey: .measuredPower)
        timestamp = try container.decode(Timestamp.self, forKey: .timestamp)
        accuracy = try container.decodeIfPresent(Double.self, forKey: .accuracy)
        if let text = try container.decodeIfPresent(String.self, forKey: .proximity) {
            proximity = Proximity(rawValue: text)
            unrecognizedProximity = proximity == nil ? text : nil
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uuid, forKey: .uuid)
        try container.encode(major, forKey: .major)
        try container.encode(minor, forKey: .minor)
        try container.encode(rssi, forKey: .rssi)
        try container.encode(measuredPower, forKey: .measuredPower)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encodeIfPresent(proximity?.rawValue ?? unrecognizedProximity, forKey: .proximity)
        try container.encodeIfPresent(accuracy, forKey: .accuracy)
    }
}

/// One location fix, as `CLLocation` delivers it.
public struct FixReport: Codable, Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    public var horizontalAccuracy: Double
    public var precise: Bool
    public var timestamp: Timestamp

    public init(latitude: Double, longitude: Double, horizontalAccuracy: Double, precise: Bool, timestamp: Timestamp) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.precise = precise
        self.timestamp = timestamp
    }
}

/// Why one item of a batch was refused.
public struct Rejection: Codable, Sendable, Equatable {
    /// "status", "sighting" or "fix".
    public var kind: String
    public var index: Int
    public var code: String
    public var message: String

    public init(kind: String, index: Int, error: ServiceError) {
        self.kind = kind
        self.index = index
        self.code = error.code
        self.message = error.message
    }
}

/// beacon-ingest's answer to a batch.
public struct IngestResult: Codable, Sendable, Equatable {
    public var accepted: Int
    public var rejected: Int
    public var rejections: [Rejection]

    public init(accepted: Int, rejected: Int, rejections: [Rejection]) {
        self.accepted = accepted
        self.rejected = rejected
        self.rejections = rejections
    }
}

/// `ingest.batch` to beacon-ingest: reports from many devices at once, as an edge gateway
/// forwards them. Each report is judged on its own; one bad report does not sink the others.
public struct IngestBatch: Codable, Sendable, Equatable {
    public var reports: [IngestReport]

    public init(reports: [IngestReport]) {
        self.reports = reports
    }
}

/// The outcome of one report of a batch: its counts, or the error that refused it whole.
public struct IngestBatchItem: Codable, Sendable, Equatable {
    public var deviceId: String
    public var accepted: Int
    public var rejected: Int
    public var rejections: [Rejection]
    public var error: ServiceError?

    public init(deviceId: String, result: IngestResult) {
        self.deviceId = deviceId
        self.accepted = result.accepted
        self.rejected = result.rejected
        self.rejections = result.rejections
        self.error = nil
    }

    public init(deviceId: String, error: ServiceError) {
        self.deviceId = deviceId
        self.accepted = 0
        self.rejected = 0
        self.rejections = []
        self.error = error
    }
}

/// beacon-ingest's answer to a batch: totals and one item per report, in order.
public struct IngestBatchResult: Codable, Sendable, Equatable {
    public var accepted: Int
    public var rejected: Int
    public var results: [IngestBatchItem]

    public init(accepted: Int, rejected: Int, results: [IngestBatchItem]) {
        self.accepted = accepted
        self.rejected = rejected
        self.results = results
    }
}
