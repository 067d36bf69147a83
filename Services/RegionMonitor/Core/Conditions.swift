import Campus
import Messages

/// A condition as added to a monitor: where it applies and what it assumes at first.
public struct ConditionSpec: Sendable, Equatable {
    public var monitor: String
    public var identifier: String
    public var condition: Condition
    /// The one device it applies to; nil: every device reporting to the monitor.
    public var deviceId: String?
    /// The state a device's record starts in instead of `unknown`. No event announces it.
    public var assuming: ConditionState?

    public init(monitor: String, identifier: String, condition: Condition, deviceId: String? = nil, assuming: ConditionState? = nil) {
        self.monitor = monitor
        self.identifier = identifier
        self.condition = condition
        self.deviceId = deviceId
        self.assuming = assuming
    }
}

extension ConditionSpec {
    /// The campus monitor's conditions: per café, its beacons (uuid + major) under the café's id,
    /// and its area (center and confirmation radius) under "<id>.area".
    public static func campus(_ catalog: CampusCatalog, monitor: String) -> [ConditionSpec] {
        catalog.cafes.flatMap { cafe in
            [ConditionSpec(monitor: monitor, identifier: cafe.id, condition: .beacon(uuid: catalog.beaconUUID, major: cafe.beaconMajor, minor: nil)),
             ConditionSpec(monitor: monitor, identifier: "\(cafe.id).area",
                           condition: .circle(latitude: cafe.latitude, longitude: cafe.longitude, radius: cafe.confirmationRadius))]
        }
    }
}

/// A `BeaconIdentityCondition` for the campus monitor: the company UUID, optionally a major
/// (café) and minor (station). Omitted values are wildcards.
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

    public var condition: Condition { .beacon(uuid: uuid, major: major, minor: minor, exitTimeout: exitTimeout) }
}

/// The engine's time constants and limits. Every duration is in seconds.
public struct RegionSettings: Sendable, Equatable {
    /// A beacon condition's exit timeout when the condition names none.
    public var exitTimeout = 30.0
    /// How far beyond the radius a fix must be (uncertainty included) to leave a circle.
    public var hysteresis = 20.0
    /// How long a device must be inside a circle before it is satisfied, unless the condition says.
    public var dwell = 0.0
    /// How long a near/immediate sighting counts for the nearest-beacon answer.
    public var nearestFreshness = 10.0
    /// How old the latest fix may be to order cafés by distance.
    public var fixFreshness = 120.0
    /// How far from the moment a code was acquired a fix may be to confirm where it was acquired.
    public var confirmWindow = 60.0
    /// Fixes are kept this long (for confirmations), then dropped.
    public var fixRetention = 900.0
    /// Fixes kept per device.
    public var fixesPerDevice = 8
    /// The most conditions one monitor may hold (CLMonitor allows 20 per app).
    public var conditionLimit = 20
    /// The most monitors besides the built-in ones.
    public var monitorLimit = 64

    public init() {}
}

/// The record of one condition for one device (CLMonitor's `CLMonitoringRecord`).
public struct ConditionRecord: Sendable, Equatable {
    public var state: ConditionState
    /// The concrete beacon observed while satisfied; nil otherwise.
    public var refinement: BeaconIdentity?
    /// The last matching sighting (in memory; after a restart, the restart time).
    public var lastSeen: Timestamp?
    /// The last event announced for this record; nil while only assumed.
    public var lastEvent: RegionEvent?

    public init(state: ConditionState, refinement: BeaconIdentity?, lastSeen: Timestamp?, lastEvent: RegionEvent?) {
        self.state = state
        self.refinement = refinement
        self.lastSeen = lastSeen
        self.lastEvent = lastEvent
    }
}

/// What the shell must store and publish after an input: each changed record with its event
/// (written with the record in one transaction) and a changed nearest beacon.
public struct RegionEffects: Sendable, Equatable {
    public var events: [RegionEvent] = []
    public var nearest: [NearestBeacon] = []
    public var isEmpty: Bool { events.isEmpty && nearest.isEmpty }
    public init() {}

    static func + (a: RegionEffects, b: RegionEffects) -> RegionEffects {
        var sum = a
        sum.events += b.events
        sum.nearest += b.nearest
        return sum
    }
}

/// Rules for names and conditions sent to the request socket.
public enum ConditionRules {
    /// Monitor names sit in topics (`region.event.<monitor>.`): no dots.
    public static func validateMonitorName(_ name: String) throws(ServiceError) {
        try TextRules.requireToken(name, field: "monitor")
    }

    public static func validateIdentifier(_ identifier: String) throws(ServiceError) {
        try TextRules.requireToken(identifier, field: "identifier", allowingDots: true)
    }

    public static func validateOwner(_ owner: String) throws(ServiceError) {
        try TextRules.requireToken(owner, field: "owner", allowingDots: true)
    }

    public static func validateDeviceID(_ id: String) throws(ServiceError) {
        try TextRules.requireToken(id, field: "deviceId")
    }

    /// A condition's values, with the UUID made canonical (upper case).
    public static func validate(_ condition: Condition) throws(ServiceError) -> Condition {
        switch condition {
        case let .beacon(uuid, major, minor, exitTimeout):
            guard let canonical = TextRules.canonicalUUID(uuid) else {
                throw ServiceError(.invalidCondition, "uuid \"\(uuid.prefix(40))\" is not a UUID (8-4-4-4-12 hex digits)")
            }
            if let major, !(0...65535).contains(major) { throw ServiceError(.invalidCondition, "major \(major) is outside 0…65535") }
            if let minor, !(0...65535).contains(minor) { throw ServiceError(.invalidCondition, "minor \(minor) is outside 0…65535") }
            if minor != nil, major == nil { throw ServiceError(.invalidCondition, "a minor needs a major (uuid, uuid+major or uuid+major+minor)") }
            if let exitTimeout, !(exitTimeout.isFinite && exitTimeout > 0 && exitTimeout <= 86_400) {
                throw ServiceError(.invalidCondition, "exitTimeout \(exitTimeout) s must be more than 0 and at most 86400")
            }
            return .beacon(uuid: canonical, major: major, minor: minor, exitTimeout: exitTimeout)
        case let .circle(latitude, longitude, radius, hysteresis, dwell):
            guard latitude.isFinite, (-90...90).contains(latitude) else { throw ServiceError(.invalidCondition, "latitude \(latitude) is outside -90…90") }
            guard longitude.isFinite, (-180...180).contains(longitude) else { throw ServiceError(.invalidCondition, "longitude \(longitude) is outside -180…180") }
            guard radius.isFinite, radius >= 1, radius <= 100_000 else { throw ServiceError(.invalidCondition, "radius \(radius) m must be 1…100000") }
            if let hysteresis, !(hysteresis.isFinite && hysteresis >= 0 && hysteresis <= 10_000) {
                throw ServiceError(.invalidCondition, "hysteresis \(hysteresis) m must be 0…10000")
            }
            if let dwell, !(dwell.isFinite && dwell >= 0 && dwell <= 86_400) {
                throw ServiceError(.invalidCondition, "dwell \(dwell) s must be 0…86400")
            }
            return condition
        }
    }
}
