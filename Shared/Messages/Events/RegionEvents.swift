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

    public init(deviceId: String, beacon: BeaconIdentity?, proximity: Proximity?, date: Timestamp) {
        self.deviceId = deviceId
        self.beacon = beacon
        self.proximity = proximity
        self.date = date
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
