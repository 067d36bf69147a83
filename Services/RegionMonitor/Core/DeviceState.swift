import Messages
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything the engine holds for one device.
///
/// Laid out for memory (issue 31: ≤ 350 B per tracked device in region-monitor): 176 bytes
/// (MemoryLayout, x86-64) with the first record and the first heard beacon in place
/// (`InlineFirstList`), where two heap arrays used to cost 80 bytes each beside a 112-byte
/// state. Swift lays fields out in the order declared, so the small ones come last, packed after
/// the nearest answer's 25 bytes; the storage number (4 bytes, no padding left to take) made it
/// 176 from 168. `DeviceTableTests` holds the size.
struct DeviceState {
    let id: String
    /// Bumped when the slot is freed (`DeviceTable.free`), so timer entries of a purged device are ignored.
    let generation: UInt32
    /// The cafés last announced as candidates while no café is named (`NearestBeaconTracker`), as
    /// an order-free key; 0 when none were.
    var candidatesKey: UInt32 = 0
    /// The earliest matching sighting not yet handed out for storage; `allSaved` when all are.
    private(set) var unsavedFrom = DeviceState.allSaved
    static let allSaved = Int64.max
    /// Recent fixes, oldest first.
    private(set) var fixes: [CompactFix] = []
    /// One per condition this device has a record of.
    var records = RecordList()
    /// The latest sighting of each beacon heard recently.
    private(set) var heard = HeardList()
    var nearest: Nearest?
    /// `rangingUnavailable` and `seenSinceSave`, one bit each.
    private var bits: UInt8 = 0
    private var movedFromBeacon = DeviceState.noBeacon
    /// The number its rows in storage are keyed by (`DeviceTable.storageNumber`); 0 until one is needed.
    var number: UInt32 = 0
    /// `scheduled`, with `unscheduled` for none (an optional's extra byte would cost 8 with padding).
    private var scheduledAt = DeviceState.unscheduled
    private static let unscheduled = Int64.min
    private static let noBeacon = CompactBeacon(uuid: -1, major: 0, minor: 0)
    private static let rangingBit: UInt8 = 1, seenBit: UInt8 = 2

    /// The café (any of its beacons) the latest readings said the device walked away from, until
    /// they no longer put another café nearer (`NearestBeaconTracker.contradicted`). Kept without
    /// an optional's extra byte, so that it fits beside the flags.
    var movedFrom: CompactBeacon? {
        get { movedFromBeacon == Self.noBeacon ? nil : movedFromBeacon }
        set { movedFromBeacon = newValue ?? Self.noBeacon }
    }
    /// The device said it cannot range beacons.
    var rangingUnavailable: Bool {
        get { bits & Self.rangingBit != 0 }
        set { bits = newValue ? bits | Self.rangingBit : bits & ~Self.rangingBit }
    }
    /// Sighted (a watched beacon) since its last matching sightings were last handed out for storage.
    private(set) var seenSinceSave: Bool {
        get { bits & Self.seenBit != 0 }
        set { bits = newValue ? bits | Self.seenBit : bits & ~Self.seenBit }
    }
    /// The deadline this device is on the timer for, if any.
    var scheduled: Int64? {
        get { scheduledAt == Self.unscheduled ? nil : scheduledAt }
        set { scheduledAt = newValue ?? Self.unscheduled }
    }

    /// A device with nothing held yet, in a slot at `generation`.
    init(id: String, generation: UInt32 = 0) {
        self.id = id
        self.generation = generation
    }

    var holdsState: Bool { !heard.isEmpty || nearest != nil || !records.isEmpty || !fixes.isEmpty || rangingUnavailable }

    func recordIndex(_ entry: Int) -> Int? {
        let entry = Int32(entry)
        return records.firstIndex { $0.entry == entry }
    }

    /// Its matching sightings were handed out for storage.
    mutating func markSaved() {
        unsavedFrom = Self.allSaved
        seenSinceSave = false
    }

    /// Still seen, but its unsaved sightings do not span the save interval yet: looked at again
    /// after its next sighting or once it goes quiet.
    mutating func deferSave() {
        seenSinceSave = false
    }

    /// A matching sighting at `time` is not stored yet (or was handed out and its write failed):
    /// the next save hands out the device's records seen from then on.
    mutating func markUnsaved(from time: Int64) {
        unsavedFrom = min(unsavedFrom, time)
    }

    /// Forgets beacons last heard `retention` or longer before `now`.
    mutating func forgetHeard(now: Int64, retention: Int64) {
        heard.removeAll { now - $0.at >= retention }
    }

    /// Drops the record of a condition that is gone. Returns how many were dropped (0 or 1).
    mutating func dropRecords(of entry: Int) -> Int {
        let entry = Int32(entry), before = records.count
        records.removeAll { $0.entry == entry }
        return before - records.count
    }

    /// Files a fix in time order, keeping the newest `limit`.
    mutating func keep(_ fix: CompactFix, limit: Int) {
        let position = fixes.lastIndex { $0.at <= fix.at }.map { $0 + 1 } ?? 0
        fixes.insert(fix, at: position)
        if fixes.count > limit { fixes.removeFirst(fixes.count - limit) }
    }

    /// Drops fixes observed before `cutoff`. Returns how many were dropped.
    mutating func expireFixes(before cutoff: Int64) -> Int {
        let before = fixes.count
        fixes.removeAll { $0.at < cutoff }
        return before - fixes.count
    }

    /// Beacons kept per device. A phone hears a handful at once; one inventing majors and minors
    /// of a watched UUID must not grow its list (or the linear search of it) without bound.
    static let heardLimit = 32

    /// A sighting of a watched beacon: heard, and the device counted as still seen by the next
    /// save of last matching sightings. Which of its records that save must store is marked by
    /// the engine (`markUnsaved`), only where the sighting moved a record's last matching
    /// sighting past what its event already stored.
    mutating func sighted(_ value: Heard) {
        hear(value)
        seenSinceSave = true
    }

    private mutating func hear(_ value: Heard) {
        var value = value
        let beacon = value.beacon, at = value.at
        if let i = heard.firstIndex(where: { $0.beacon == beacon }) {
            // A sighting without evidence (`readings` 0) counts one more reading of its beacon.
            if value.readings == 0 { value.readings = heard[i].readings == .max ? .max : heard[i].readings + 1 }
            heard[i] = value
        } else if heard.count < Self.heardLimit {
            value.readings = max(1, value.readings)
            heard.append(value)
        } else if let oldest = heard.indices.min(by: { heard[$0].at < heard[$1].at }), heard[oldest].at <= at {
            value.readings = max(1, value.readings)
            heard[oldest] = value
        }
    }
}

/// The latest sighting of one beacon by a device, with the evidence it carried.
struct Heard {
    var beacon: CompactBeacon
    var proximity: Proximity
    /// How many readings `level` is the mean of. A sighting that carried no evidence comes in
    /// with 0 and counts one more than its beacon's last (`DeviceState.hear`).
    var readings: UInt16
    /// The evidence for the nearest café: the mean RSSI less the beacon's measured power, dB
    /// (−20·log10 of the distance in metres; higher is nearer). From the accuracy when the
    /// sighting carried no mean; −∞ when it has neither.
    var level: Float
    var accuracy: Double
    var at: Int64

    init(beacon: CompactBeacon, proximity: Proximity, accuracy: Double, at: Int64, level: Float, readings: UInt16) {
        self.beacon = beacon
        self.proximity = proximity
        self.accuracy = accuracy
        self.at = at
        self.level = level
        self.readings = readings
    }

    /// The heard beacon a sighting of `beacon` makes.
    init(_ s: Sighting, beacon: CompactBeacon) {
        let level: Float
        if let mean = s.meanRssi {
            level = Float(mean - Double(s.measuredPower))
        } else if s.accuracy > 0 {
            level = Float(-20 * log10(s.accuracy))
        } else {
            level = s.accuracy == 0 ? 40 : -.infinity
        }
        self.init(beacon: beacon, proximity: s.proximity, accuracy: s.accuracy, at: s.observedAt.milliseconds, level: level,
                  readings: UInt16(clamping: s.readings ?? 0))
    }
}

/// The nearest beacon last announced for a device: its beacon, times and proximity.
struct Nearest {
    var beacon: CompactBeacon
    /// When it was announced.
    var date: Int64
    /// Its last near or immediate sighting (the restart, for a restored one): the answer ends one
    /// nearest freshness after it, even while the beacon is still heard far. Kept here, not per
    /// heard beacon, since a far sighting replaces the beacon's `Heard`.
    var nearAt: Int64
    var proximity: Proximity

    init(beacon: CompactBeacon, proximity: Proximity, date: Int64, nearAt: Int64) {
        self.beacon = beacon
        self.proximity = proximity
        self.date = date
        self.nearAt = nearAt
    }
}

/// A location fix as kept for confirmations and the nearest-café order.
struct CompactFix {
    var latitude: Double
    var longitude: Double
    var accuracy: Double
    var precise: Bool
    var at: Int64
}
