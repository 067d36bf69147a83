import Messages

/// The record of one condition for one device (CLMonitor's `CLMonitoringRecord`).
public struct ConditionRecord: Sendable, Equatable {
    public var state: ConditionState
    /// The concrete beacon observed while satisfied; nil otherwise.
    public var refinement: BeaconIdentity?
    /// The last matching sighting (beacon conditions), as held or as restored from storage.
    public var lastSeen: Timestamp?
    /// The last event announced for this record; nil while only assumed.
    public var lastEvent: RegionEvent?

    /// A record as held or as assumed.
    public init(state: ConditionState, refinement: BeaconIdentity?, lastSeen: Timestamp?, lastEvent: RegionEvent?) {
        self.state = state
        self.refinement = refinement
        self.lastSeen = lastSeen
        self.lastEvent = lastEvent
    }
}
