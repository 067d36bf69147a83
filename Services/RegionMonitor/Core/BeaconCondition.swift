import Messages

/// A `BeaconIdentityCondition`: the company UUID, optionally a major (café) and minor (station).
/// Omitted values are wildcards. Unsatisfied when `exitTimeout` passes with no matching sighting.
public struct BeaconCondition: Sendable, Equatable {
    public var identifier: String
    public var uuid: String
    public var major: Int?
    public var minor: Int?
    public var exitTimeout: Double

    public init(identifier: String, uuid: String, major: Int? = nil, minor: Int? = nil, exitTimeout: Double) {
        self.identifier = identifier
        self.uuid = uuid.uppercased()
        self.major = major
        self.minor = minor
        self.exitTimeout = exitTimeout
    }

    public func matches(_ beacon: BeaconIdentity) -> Bool {
        beacon.uuid == uuid && (major == nil || major == beacon.major) && (minor == nil || minor == beacon.minor)
    }

    public var condition: Condition { .beacon(uuid: uuid, major: major, minor: minor) }
}

/// A record: one condition's state for one device (CLMonitor's `CLMonitoringRecord`).
public struct ConditionRecord: Sendable, Equatable {
    public var state: ConditionState
    /// The concrete beacon observed while satisfied; nil otherwise.
    public var refinement: BeaconIdentity?
    /// The last matching sighting (in memory; after a restart, the restart time).
    public var lastSeen: Timestamp?
    /// The last event announced for this record.
    public var lastEvent: RegionEvent?

    public init(state: ConditionState, refinement: BeaconIdentity?, lastSeen: Timestamp?, lastEvent: RegionEvent?) {
        self.state = state
        self.refinement = refinement
        self.lastSeen = lastSeen
        self.lastEvent = lastEvent
    }
}
