import Messages

/// region-monitor's rules for every device at once (CLMonitor semantics): monitors by name with
/// one owner each, conditions added under identifiers for every device or one, records per
/// (device, condition), events only when a record's state or flags change, beacon exits and
/// dwell times fired by a timer, and the nearest near/immediate beacon per device (far and
/// unknown never switch the café). Synchronous and deterministic; every input carries the time.
///
/// Sightings are the hot path (every phone ranges about once a second), so a device's state is
/// one compact value found with one hash-table lookup (`DeviceIndex`); the beacon UUIDs conditions name are interned
/// (a sighting of any other UUID is dropped before it costs anything) and public
/// values (`ConditionRecord`, `RegionEvent`, `NearestBeacon`) are built only when asked for or
/// announced. Fixes never leave the engine except as yes/no answers and orderings.
///
/// The engine is a façade over parts that each own their state: `MonitorTable`,
/// `ConditionTable`, `BeaconUUIDTable`, `DeviceTable` (with each device's `DeviceState`),
/// `LocationAuthorizations`, `NearestBeaconTracker`, `RegionTimer` and `SightingTimeLedger`.
/// What crosses parts is in the extensions named for each concept: `+Monitors`, `+Conditions`,
/// `+Records`, `+Sightings`, `+NearestBeacon`, `+Timer`, `+Devices`, `+Fixes`,
/// `+LocationAnswers`, `+SightingTimes`.
public final class RegionEngine {
    public let settings: RegionSettings

    // The parts: each owns its state (private) and is reached only through its API. They are
    // final classes held by `let`, so the hot path passes references, never copies of their
    // arrays, and DeviceState is changed in place through `DeviceTable`'s subscript.
    /// Monitors by name, their owners and their conditions in the order added.
    let monitors: MonitorTable
    /// Every condition, compiled for the hot path.
    let conditions: ConditionTable
    /// The beacon UUIDs conditions name; sightings of any other UUID change nothing.
    let uuids = BeaconUUIDTable()
    /// Every device's compact state.
    let devices = DeviceTable()
    /// Withdrawn and approximate-only devices.
    let authorizations = LocationAuthorizations()
    /// The nearest near/immediate beacon rule.
    let nearestTracker: NearestBeaconTracker
    /// When each device next needs the timer.
    let timer: RegionTimer
    /// Where the save of last matching sightings stands.
    let sightingTimes: SightingTimeLedger

    /// An engine with no monitors yet.
    public init(settings: RegionSettings = RegionSettings()) {
        self.settings = settings
        let freshness = Self.milliseconds(settings.nearestFreshness)
        monitors = MonitorTable(conditionLimit: settings.conditionLimit, monitorLimit: settings.monitorLimit)
        conditions = ConditionTable(freshnessMilliseconds: freshness)
        nearestTracker = NearestBeaconTracker(freshnessMilliseconds: freshness, marginDecibels: settings.nearestMargin,
                                              readings: settings.nearestReadings, aloneReadings: settings.nearestAloneReadings,
                                              movedDecibels: settings.nearestMovedMargin)
        timer = RegionTimer(nearest: nearestTracker)
        sightingTimes = SightingTimeLedger(intervalMilliseconds: Self.milliseconds(settings.sightingSaveInterval))
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
    public var trackedDevices: Int { devices.count }
    /// The device table's slots, tracked devices and freed ones: what a walk over it visits.
    public var deviceSlots: Int { devices.slotCount }

    /// Beacon UUIDs held: those conditions name, plus retired ones not yet recycled. Sightings never add one.
    public var beaconUUIDs: Int { uuids.count }

    static func milliseconds(_ seconds: Double) -> Int64 { Int64((seconds * 1000).rounded()) }
}
