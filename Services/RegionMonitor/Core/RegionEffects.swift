import Messages

/// What the shell must store and publish after an input: each changed record with its event
/// (written with the record in one transaction), a changed nearest beacon, and a device whose
/// location data must be dropped. `refused`: the input came from a device whose authorization
/// is withdrawn, changed nothing and is not to be stored.
public struct RegionEffects: Sendable, Equatable {
    public var events: [RegionEvent] = []
    public var nearest: [NearestBeacon] = []
    /// The device whose authorization was withdrawn: delete what is stored of its location and
    /// announce `region.purged` (after `events`, its records' last events).
    public var purged: LocationPurged?
    /// The purged device's storage number (`RegionEngine.storageNumber`), its rows' key; 0 when
    /// none was given (nothing of it was stored).
    public var purgedNumber: UInt32 = 0
    public var refused = false
    /// The input was a sighting of a beacon whose UUID no condition names: it changed nothing.
    public var unwatched = false
    /// Nothing to store or publish.
    public var isEmpty: Bool { events.isEmpty && nearest.isEmpty && purged == nil }
    /// No effects.
    public init() {}
}
