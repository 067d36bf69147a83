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

    /// A condition for every device (`deviceId` nil), assuming nothing unless told.
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
    /// its area (center and confirmation radius) under "<id>.area", and, when the catalog gives
    /// one, its approach area (the kitchen paces orders by it) under "<id>.approach".
    public static func campus(_ catalog: CampusCatalog, monitor: String) -> [ConditionSpec] {
        catalog.cafes.flatMap { cafe in
            [ConditionSpec(monitor: monitor, identifier: cafe.id, condition: .beacon(uuid: catalog.beaconUUID, major: cafe.beaconMajor, minor: nil)),
             ConditionSpec(monitor: monitor, identifier: "\(cafe.id).area",
                           condition: .circle(latitude: cafe.latitude, longitude: cafe.longitude, radius: cafe.confirmationRadius))]
                + (cafe.approach.map { approach in
                    [ConditionSpec(monitor: monitor, identifier: "\(cafe.id).approach",
                                   condition: .circle(latitude: cafe.latitude, longitude: cafe.longitude, radius: approach.radius))]
                } ?? [])
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

    /// The UUID is kept upper case, as `ConditionRules.validate` makes it canonical.
    public init(identifier: String, uuid: String, major: Int? = nil, minor: Int? = nil, exitTimeout: Double) {
        self.identifier = identifier
        self.uuid = uuid.uppercased()
        self.major = major
        self.minor = minor
        self.exitTimeout = exitTimeout
    }

    /// The condition as the request socket and storage carry it.
    public var condition: Condition { .beacon(uuid: uuid, major: major, minor: minor, exitTimeout: exitTimeout) }
}
