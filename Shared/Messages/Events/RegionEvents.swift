/// A condition's state for one device, as CLMonitor reports it.
public enum ConditionState: String, Codable, Sendable, CaseIterable {
    case unknown, satisfied, unsatisfied
}

/// Flags an event carries where they apply, as Apple names them.
public enum EventFlag: String, Codable, Sendable, CaseIterable {
    case accuracyLimited, authorizationDenied, conditionUnsupported, conditionLimitExceeded
}

/// `region.event` on `region.event.<monitor>.`: a condition changed state for a device.
/// Carries states and identifiers, never coordinates.
public struct RegionEvent: Codable, Sendable, Equatable {
    public var monitor: String
    public var identifier: String
    public var deviceId: String
    public var state: ConditionState
    /// For a satisfied beacon condition: the concrete beacon observed. Nil otherwise.
    public var refinement: BeaconIdentity?
    public var flags: [EventFlag]
    public var date: Timestamp

    public init(monitor: String, identifier: String, deviceId: String, state: ConditionState, refinement: BeaconIdentity?, flags: [EventFlag], date: Timestamp) {
        self.monitor = monitor
        self.identifier = identifier
        self.deviceId = deviceId
        self.state = state
        self.refinement = refinement
        self.flags = flags
        self.date = date
    }
}

/// `region.nearest` on `region.nearest.`: the café (major) and station (minor) of a device's
/// nearest near/immediate beacon changed; `beacon` nil when none is near any more.
public struct NearestBeacon: Codable, Sendable, Equatable {
    public var deviceId: String
    public var beacon: BeaconIdentity?
    public var proximity: Proximity?
    public var date: Timestamp
    /// While the evidence does not yet tell which café the device is at (`beacon` nil): the
    /// nearest beacon of each café it may be at, likeliest first. Nil when a beacon is named or
    /// none is near.
    public var candidates: [BeaconIdentity]?

    /// The most candidates an answer carries.
    public static let maxCandidates = 8

    public init(deviceId: String, beacon: BeaconIdentity?, proximity: Proximity?, date: Timestamp, candidates: [BeaconIdentity]? = nil) {
        self.deviceId = deviceId
        self.beacon = beacon
        self.proximity = proximity
        self.date = date
        self.candidates = candidates
    }

    enum CodingKeys: String, CodingKey { case deviceId, beacon, proximity, date, candidates }

    /// At most `maxCandidates` candidates.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        deviceId = try c.decode(String.self, forKey: .deviceId)
        beacon = try c.decodeIfPresent(BeaconIdentity.self, forKey: .beacon)
        proximity = try c.decodeIfPresent(Proximity.self, forKey: .proximity)
        date = try c.decode(Timestamp.self, forKey: .date)
        candidates = try c.decodeIfPresent([BeaconIdentity].self, forKey: .candidates)
        if let candidates, candidates.count > Self.maxCandidates {
            throw DecodingError.dataCorruptedError(forKey: .candidates, in: c, debugDescription: "at most \(Self.maxCandidates) candidates, not \(candidates.count)")
        }
    }
}

/// `region.purged` on `region.purged.`: every piece of location state for a device was dropped
/// (authorization withdrawn); consumers drop what they derived from it.
public struct LocationPurged: Codable, Sendable, Equatable {
    public var deviceId: String
    public var reason: Authorization
    public var date: Timestamp

    public init(deviceId: String, reason: Authorization, date: Timestamp) {
        self.deviceId = deviceId
        self.reason = reason
        self.date = date
    }
}
