/// A condition as region-monitor holds it (CLMonitor's condition types).
public enum Condition: Codable, Sendable, Equatable {
    /// `BeaconIdentityCondition`: nil major/minor are wildcards.
    case beacon(uuid: String, major: Int?, minor: Int?)
    /// `CircularGeographicCondition`: a café's center and radius in metres.
    case circle(latitude: Double, longitude: Double, radius: Double)
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

/// `monitor.record`: a condition and, for a device, its lastEvent.
public struct RecordQuery: Codable, Sendable, Equatable {
    public var monitor: String
    public var identifier: String
    public var deviceId: String
    public init(monitor: String, identifier: String, deviceId: String) {
        self.monitor = monitor
        self.identifier = identifier
        self.deviceId = deviceId
    }
}

public struct MonitorRecord: Codable, Sendable, Equatable {
    public var identifier: String
    public var condition: Condition
    /// Nil when the device never produced an event for this condition.
    public var lastEvent: RegionEvent?
    public init(identifier: String, condition: Condition, lastEvent: RegionEvent?) {
        self.identifier = identifier
        self.condition = condition
        self.lastEvent = lastEvent
    }
}

/// `nearest.get`: the café and station of a device's nearest near/immediate beacon.
public struct DeviceQuery: Codable, Sendable, Equatable {
    public var deviceId: String
    public init(deviceId: String) { self.deviceId = deviceId }
}
