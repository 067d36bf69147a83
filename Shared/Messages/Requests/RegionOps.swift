/// A condition as region-monitor holds it (CLMonitor's condition types).
public enum Condition: Codable, Sendable, Equatable {
    /// `BeaconIdentityCondition`: nil major/minor are wildcards. Unsatisfied once `exitTimeout`
    /// seconds pass with no matching sighting (nil: the service's default).
    case beacon(uuid: String, major: Int?, minor: Int?, exitTimeout: Double? = nil)
    /// `CircularGeographicCondition`: satisfied inside `radius` metres of the center. Leaving needs
    /// `hysteresis` metres beyond the radius; entering counts only after `dwell` seconds inside
    /// (nil: the service's defaults). The center is a place (a café), never a device's position.
    case circle(latitude: Double, longitude: Double, radius: Double, hysteresis: Double? = nil, dwell: Double? = nil)
}

/// `monitor.list`: every monitor on this region-monitor, with its owner and size.
public struct MonitorList: Codable, Sendable, Equatable {
    public var monitors: [MonitorInfo]
    public init(monitors: [MonitorInfo]) { self.monitors = monitors }
}

public struct MonitorInfo: Codable, Sendable, Equatable {
    public var monitor: String
    /// Who holds the monitor now; nil when nobody has it open.
    public var owner: String?
    public var conditions: Int
    /// The most conditions this monitor may hold (`monitor.conditionLimitExceeded` beyond).
    public var conditionLimit: Int
    /// True for the campus monitor, built from the catalog and changed only by editing it.
    public var builtIn: Bool

    public init(monitor: String, owner: String?, conditions: Int, conditionLimit: Int, builtIn: Bool) {
        self.monitor = monitor
        self.owner = owner
        self.conditions = conditions
        self.conditionLimit = conditionLimit
        self.builtIn = builtIn
    }
}

/// `monitor.open` / `monitor.close`: take or release a monitor by name. One owner per name at
/// a time; opening again as the same owner is harmless. A closed monitor keeps its conditions
/// and records and goes on monitoring (like CLMonitor across app launches).
public struct MonitorOwnership: Codable, Sendable, Equatable {
    public var monitor: String
    public var owner: String
    public init(monitor: String, owner: String) {
        self.monitor = monitor
        self.owner = owner
    }
}

/// `monitor.add`: a condition under an identifier (adding again replaces it and its records),
/// for every device reporting to the monitor or for one device, optionally with an assumed
/// initial state (no event is sent for the assumption itself).
public struct AddCondition: Codable, Sendable, Equatable {
    public var monitor: String
    public var owner: String
    public var identifier: String
    public var condition: Condition
    /// Only this device's fixes and sightings are evaluated; nil: every device.
    public var deviceId: String?
    /// The state records start in instead of `unknown`.
    public var assuming: ConditionState?

    public init(monitor: String, owner: String, identifier: String, condition: Condition, deviceId: String? = nil, assuming: ConditionState? = nil) {
        self.monitor = monitor
        self.owner = owner
        self.identifier = identifier
        self.condition = condition
        self.deviceId = deviceId
        self.assuming = assuming
    }
}

/// `monitor.remove`: a condition and every record of it.
public struct RemoveCondition: Codable, Sendable, Equatable {
    public var monitor: String
    public var owner: String
    public var identifier: String
    public init(monitor: String, owner: String, identifier: String) {
        self.monitor = monitor
        self.owner = owner
        self.identifier = identifier
    }
}

/// The answer to `monitor.remove`: how many device records went with the condition.
public struct RemovedCondition: Codable, Sendable, Equatable {
    public var monitor: String
    public var identifier: String
    public var recordsRemoved: Int
    public init(monitor: String, identifier: String, recordsRemoved: Int) {
        self.monitor = monitor
        self.identifier = identifier
        self.recordsRemoved = recordsRemoved
    }
}

/// `monitor.identifiers`: the condition identifiers of a monitor.
public struct MonitorQuery: Codable, Sendable, Equatable {
    public var monitor: String
    public init(monitor: String) { self.monitor = monitor }
}

public struct MonitorIdentifiers: Codable, Sendable, Equatable {
    public var monitor: String
    public var identifiers: [String]
    public init(monitor: String, identifiers: [String]) {
        self.monitor = monitor
        self.identifiers = identifiers
    }
}

/// `monitor.record`: a condition and, for a device, its lastEvent. `deviceId` may be left out
/// for a condition that applies to one device.
public struct RecordQuery: Codable, Sendable, Equatable {
    public var monitor: String
    public var identifier: String
    public var deviceId: String?
    public init(monitor: String, identifier: String, deviceId: String?) {
        self.monitor = monitor
        self.identifier = identifier
        self.deviceId = deviceId
    }
}

public struct MonitorRecord: Codable, Sendable, Equatable {
    public var identifier: String
    public var condition: Condition
    /// The one device the condition applies to; nil: every device.
    public var deviceId: String?
    public var assuming: ConditionState?
    /// Nil when the device never produced an event for this condition.
    public var lastEvent: RegionEvent?
    public init(identifier: String, condition: Condition, deviceId: String? = nil, assuming: ConditionState? = nil, lastEvent: RegionEvent?) {
        self.identifier = identifier
        self.condition = condition
        self.deviceId = deviceId
        self.assuming = assuming
        self.lastEvent = lastEvent
    }
}

/// `nearest.get`: the café and station of a device's nearest near/immediate beacon.
public struct DeviceQuery: Codable, Sendable, Equatable {
    /// A phone may leave its own device out (it is taken from its key).
    public var deviceId: String?
    public init(deviceId: String?) { self.deviceId = deviceId }
}

/// The answer to `nearest.get`: the beacon, and the café and station the catalog gives it.
public struct NearestAnswer: Codable, Sendable, Equatable {
    public var deviceId: String
    public var beacon: BeaconIdentity?
    public var proximity: Proximity?
    /// The café whose major the beacon carries; nil when no beacon is near or the major is unknown.
    public var cafeId: String?
    /// The station inside it whose minor the beacon carries.
    public var stationId: String?
    /// Cafés ordered by distance from the device's latest fresh fix (nearest first); empty with
    /// no fresh fix. Ids only: the distances would reveal where the device is.
    public var cafesByDistance: [String]
    public var date: Timestamp
    /// While the evidence does not yet tell which café the device is at (`cafeId` nil): the cafés
    /// it may be at, likeliest first, for the app to ask which counter it is at. Empty when a café
    /// is named or no beacon is near.
    public var candidates: [String]

    public init(deviceId: String, beacon: BeaconIdentity?, proximity: Proximity?, cafeId: String?, stationId: String?, cafesByDistance: [String], date: Timestamp,
                candidates: [String] = []) {
        self.deviceId = deviceId
        self.beacon = beacon
        self.proximity = proximity
        self.cafeId = cafeId
        self.stationId = stationId
        self.cafesByDistance = cafesByDistance
        self.date = date
        self.candidates = candidates
    }

    enum CodingKeys: String, CodingKey { case deviceId, beacon, proximity, cafeId, stationId, cafesByDistance, date, candidates }

    /// `candidates` may be left out (an answer from before they existed): none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        deviceId = try c.decode(String.self, forKey: .deviceId)
        beacon = try c.decodeIfPresent(BeaconIdentity.self, forKey: .beacon)
        proximity = try c.decodeIfPresent(Proximity.self, forKey: .proximity)
        cafeId = try c.decodeIfPresent(String.self, forKey: .cafeId)
        stationId = try c.decodeIfPresent(String.self, forKey: .stationId)
        cafesByDistance = try c.decode([String].self, forKey: .cafesByDistance)
        date = try c.decode(Timestamp.self, forKey: .date)
        candidates = try c.decodeIfPresent([String].self, forKey: .candidates) ?? []
        if candidates.count > NearestBeacon.maxCandidates {
            throw DecodingError.dataCorruptedError(forKey: .candidates, in: c, debugDescription: "at most \(NearestBeacon.maxCandidates) candidates, not \(candidates.count)")
        }
    }
}

/// `location.confirm`: was the device inside a region when it acquired an App Clip code?
/// The region is a café's (its center and confirmation radius) or given here, radius ≤ 500 m.
/// Answered from a fresh precise fix only, with yes, no or disallowed — never a position.
public struct ConfirmLocation: Codable, Sendable, Equatable {
    /// A phone may leave its own device out (it is taken from its key).
    public var deviceId: String?
    /// The code's URL, recorded with the answer (order-service checks it was issued).
    public var code: String
    public var acquiredAt: Timestamp
    /// A café id: its center and confirmation radius are the region.
    public var cafeId: String?
    /// Or an explicit region.
    public var region: ConfirmRegion?

    public init(deviceId: String?, code: String, acquiredAt: Timestamp, cafeId: String? = nil, region: ConfirmRegion? = nil) {
        self.deviceId = deviceId
        self.code = code
        self.acquiredAt = acquiredAt
        self.cafeId = cafeId
        self.region = region
    }
}

public struct ConfirmRegion: Codable, Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    public var radius: Double
    public init(latitude: Double, longitude: Double, radius: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
    }
}

/// The answer to `location.confirm`.
public struct LocationConfirmation: Codable, Sendable, Equatable {
    public enum Result: String, Codable, Sendable, CaseIterable {
        /// A fresh precise fix places the device inside the region.
        case yes
        /// A fresh precise fix places the device outside it.
        case no
        /// The platform may not or cannot tell: see `reason`.
        case disallowed
    }

    /// Why the answer is `disallowed`.
    public enum Reason: String, Codable, Sendable, CaseIterable {
        /// Location authorization is denied, restricted, not determined, or not in effect now.
        case authorizationDenied
        /// The user granted approximate location only.
        case approximateOnly
        /// No precise fix near the time the code was acquired.
        case noFreshFix
        /// The fix's uncertainty is wider than the region.
        case fixTooCoarse
    }

    public var deviceId: String
    public var code: String
    public var result: Result
    public var reason: Reason?

    public init(deviceId: String, code: String, result: Result, reason: Reason? = nil) {
        self.deviceId = deviceId
        self.code = code
        self.result = result
        self.reason = reason
    }
}
