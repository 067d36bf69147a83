import Messages

/// region-monitor's rules for every device at once (CLMonitor semantics): monitors by name with
/// one owner each, conditions added under identifiers for every device or one, records per
/// (device, condition), events only when a record's state or flags change, beacon exits and
/// dwell times fired by a timer, and the nearest near/immediate beacon per device (far and
/// unknown never switch the café). Synchronous and deterministic; every input carries the time.
///
/// Sightings are the hot path (every phone ranges about once a second), so a device's state is
/// one compact value found with one dictionary lookup; the beacon UUIDs conditions name are interned
/// (a sighting of any other UUID is dropped before it costs anything) and public
/// values (`ConditionRecord`, `RegionEvent`, `NearestBeacon`) are built only when asked for or
/// announced. Fixes never leave the engine except as yes/no answers and orderings.
///
/// This file holds the engine's state; what it does with it is in the extensions named for each
/// concept: `+Monitors`, `+Conditions`, `+Records`, `+Sightings`, `+NearestBeacon`, `+Timer`,
/// `+Devices`, `+Fixes`, `+LocationAnswers`, `+BeaconInterning`, `+SightingTimes`.
public final class RegionEngine {
    public let settings: RegionSettings

    var monitors: [String: Monitor] = [:]
    var entries: [Entry?] = []
    var freeEntries: [Int] = []
    var nextOrder = 0
    /// Beacon conditions for every device, as the sighting path walks them.
    var beaconMatchers: [(entry: Int, matcher: Matcher, exit: Int64)] = []
    /// Circles for every device.
    var circleEntries: [Int] = []
    /// Conditions for one device, by device id.
    var scoped: [String: [Int]] = [:]
    /// Conditions for every device that assume a state: a new device starts with their records.
    var assumedEntries: [Int] = []

    var slots: [String: Int] = [:]
    var devices: [DeviceState] = []
    var freeSlots: [Int] = []
    /// The beacon UUIDs conditions name; sightings of any other UUID change nothing.
    var beaconUUIDTable = BeaconUUIDTable()
    var lastUUID: (text: String, index: Int16)?
    /// Heard beacons are kept this long: the longest exit timeout, or the freshness if longer.
    var heardMilliseconds: Int64
    let freshnessMilliseconds: Int64
    /// When each device next needs the timer (an exit, a dwell, a stale nearest beacon, an
    /// expiry), so a tick touches only the devices that are due instead of walking all of them.
    var due = DeadlineHeap()
    /// A device still seen has its last matching sightings handed out for storage this often (`+SightingTimes`).
    let sightingSaveMilliseconds: Int64
    /// Where the next `sightingTimesToSave` pass resumes.
    var sightingSaveCursor = 0

    /// Devices whose authorization is withdrawn (set by `deviceStatus`): their sightings and fixes
    /// are refused, even one that raced the status change. Outlives the device's slot, which a
    /// purge frees.
    var withdrawn: Set<String> = []
    /// Devices whose last status said the user allows approximate location only.
    var approximate: Set<String> = []

    /// An engine with no monitors yet.
    public init(settings: RegionSettings = RegionSettings()) {
        self.settings = settings
        freshnessMilliseconds = Self.milliseconds(settings.nearestFreshness)
        heardMilliseconds = freshnessMilliseconds
        sightingSaveMilliseconds = Self.milliseconds(settings.sightingSaveInterval)
    }

    /// An engine with one built-in monitor holding these beacon conditions.
    public convenience init(monitor: String, conditions: [BeaconCondition], nearestFreshness: Double = 10) throws(ServiceError) {
        var settings = RegionSettings()
        settings.nearestFreshness = nearestFreshness
        self.init(settings: settings)
        declareBuiltIn(monitor)
        for condition in conditions {
            try add(ConditionSpec(monitor: monitor, identifier: condition.identifier, condition: condition.condition), owner: nil, now: Timestamp(milliseconds: 0))
        }
    }

    /// Devices with any state held.
    public var trackedDevices: Int { slots.count }

    /// Beacon UUIDs held: those conditions name, plus retired ones not yet recycled. Sightings never add one.
    public var beaconUUIDs: Int { beaconUUIDTable.count }

    static func milliseconds(_ seconds: Double) -> Int64 { Int64((seconds * 1000).rounded()) }
}
