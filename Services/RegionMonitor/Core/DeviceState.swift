import Messages

/// Everything the engine holds for one device.
struct DeviceState {
    let id: String
    /// Bumped when the slot is freed (`DeviceTable.free`), so timer entries of a purged device are ignored.
    let generation: UInt32
    // The flags sit beside `generation` (in its padding) and `unsavedFrom` in the tail padding, so
    // the state is no larger than before it was saved: 88 bytes (MemoryLayout, x86-64), 96 since
    // the nearest answer keeps its beacon's last near sighting (`Nearest.nearAt`), 112 since it
    // keeps the switching rule's challenger (`Nearest.challenger`).
    /// The device said it cannot range beacons.
    var rangingUnavailable = false
    /// Sighted (a watched beacon) since its last matching sightings were last handed out for storage.
    private(set) var seenSinceSave = false
    /// The deadline this device is on the timer for, if any.
    var scheduled: Int64?
    /// One per condition this device has a record of.
    var records: [CompactRecord] = []
    /// The latest sighting of each beacon heard recently.
    private(set) var heard: [Heard] = []
    var nearest: Nearest?
    /// Recent fixes, oldest first.
    private(set) var fixes: [CompactFix] = []
    /// The earliest matching sighting not yet handed out for storage; `allSaved` when all are.
    private(set) var unsavedFrom = DeviceState.allSaved
    static let allSaved = Int64.max

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

    /// Sightings from `time` on were handed out but their write failed: handed out again.
    mutating func keepUnsaved(from time: Int64) {
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

    /// A sighting of a watched beacon: heard, and (in the same access, this is the hot path) noted
    /// for the next save of last matching sightings. Marking one that matched nothing only makes
    /// that save look at the device's records for nothing.
    mutating func sighted(_ beacon: CompactBeacon, proximity: Proximity, accuracy: Double, at: Int64) {
        hear(beacon, proximity: proximity, accuracy: accuracy, at: at)
        seenSinceSave = true
        if at < unsavedFrom { unsavedFrom = at }
    }

    private mutating func hear(_ beacon: CompactBeacon, proximity: Proximity, accuracy: Double, at: Int64) {
        let value = Heard(beacon: beacon, proximity: proximity, accuracy: accuracy, at: at)
        if let i = heard.firstIndex(where: { $0.beacon == beacon }) {
            heard[i] = value
        } else if heard.count < Self.heardLimit {
            heard.append(value)
        } else if let oldest = heard.indices.min(by: { heard[$0].at < heard[$1].at }), heard[oldest].at <= at {
            heard[oldest] = value
        }
    }
}

/// The latest sighting of one beacon by a device.
struct Heard {
    var beacon: CompactBeacon
    var proximity: Proximity
    var accuracy: Double
    var at: Int64
}

/// The nearest beacon last announced for a device. The switching rule's challenger is kept in
/// 10 bytes (its beacon, or none, and its start relative to `date`) ahead of the times, and the
/// proximity last, so the answer takes 33 bytes with its optional.
struct Nearest {
    var beacon: CompactBeacon
    /// The challenger's beacon; `noChallenger` when there is none.
    private var challengerBeacon = Nearest.noChallenger
    /// When the challenge started, in milliseconds after `date` (one over 24 days after it does
    /// not fit: no challenger is kept, and the tracker switches at once).
    private var challengeOffset: Int32 = 0
    /// When it was announced.
    var date: Int64
    /// Its last near or immediate sighting (the restart, for a restored one): the answer ends one
    /// nearest freshness after it, even while the beacon is still heard far. Kept here, not per
    /// heard beacon, since a far sighting replaces the beacon's `Heard`.
    var nearAt: Int64
    var proximity: Proximity

    private static let noChallenger = CompactBeacon(uuid: -1, major: 0, minor: 0)

    init(beacon: CompactBeacon, proximity: Proximity, date: Int64, nearAt: Int64) {
        self.beacon = beacon
        self.proximity = proximity
        self.date = date
        self.nearAt = nearAt
    }

    /// Another beacon found nearer by the switching margin, not yet for the switch time.
    var challenger: Challenger? {
        get { challengerBeacon == Self.noChallenger ? nil : Challenger(beacon: challengerBeacon, since: date + Int64(challengeOffset)) }
        set {
            if let newValue, let offset = Int32(exactly: newValue.since - date) {
                challengerBeacon = newValue.beacon
                challengeOffset = offset
            } else {
                challengerBeacon = Self.noChallenger
            }
        }
    }
}

/// A beacon challenging the nearest answer (`NearestBeaconTracker.challenge`): ahead by the
/// margin at every decision since `since`.
struct Challenger {
    var beacon: CompactBeacon
    var since: Int64
}

/// A location fix as kept for confirmations and the nearest-café order.
struct CompactFix {
    var latitude: Double
    var longitude: Double
    var accuracy: Double
    var precise: Bool
    var at: Int64
}
