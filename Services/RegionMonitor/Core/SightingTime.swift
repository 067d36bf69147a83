import Messages

/// A satisfied beacon record's last matching sighting, as storage keeps it: after a restart the
/// record's exit timeout runs from it, so exits fire when they are due.
public struct SightingTime: Sendable, Equatable {
    public var deviceId: String
    public var monitor: String
    public var identifier: String
    public var lastSeen: Timestamp
    /// The device's storage number (`RegionEngine.storageNumber`): its record's key.
    public var number: UInt32

    /// One record's last matching sighting.
    public init(deviceId: String, monitor: String, identifier: String, lastSeen: Timestamp, number: UInt32 = 0) {
        self.deviceId = deviceId
        self.number = number
        self.monitor = monitor
        self.identifier = identifier
        self.lastSeen = lastSeen
    }
}
