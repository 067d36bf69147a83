import Messages

/// Everything the engine holds for one device.
struct DeviceState {
    var id: String
    /// Bumped when the slot is freed, so timer entries of a purged device are ignored.
    var generation: UInt32 = 0
    /// The deadline this device is on the timer for, if any.
    var scheduled: Int64?
    /// One per condition this device has a record of.
    var records: [CompactRecord] = []
    /// The latest sighting of each beacon heard recently.
    var heard: [Heard] = []
    var nearest: Nearest?
    /// Recent fixes, oldest first.
    var fixes: [CompactFix] = []
    /// The device said it cannot range beacons.
    var rangingUnavailable = false

    var holdsState: Bool { !heard.isEmpty || nearest != nil || !records.isEmpty || !fixes.isEmpty || rangingUnavailable }

    func recordIndex(_ entry: Int) -> Int? {
        let entry = Int32(entry)
        return records.firstIndex { $0.entry == entry }
    }

    mutating func hear(_ beacon: CompactBeacon, proximity: Proximity, accuracy: Double, at: Int64) {
        if let i = heard.firstIndex(where: { $0.beacon == beacon }) {
            heard[i] = Heard(beacon: beacon, proximity: proximity, accuracy: accuracy, at: at)
        } else {
            heard.append(Heard(beacon: beacon, proximity: proximity, accuracy: accuracy, at: at))
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

/// The nearest beacon last announced for a device.
struct Nearest {
    var beacon: CompactBeacon
    var proximity: Proximity
    var date: Int64
}

/// A location fix as kept for confirmations and the nearest-café order.
struct CompactFix {
    var latitude: Double
    var longitude: Double
    var accuracy: Double
    var precise: Bool
    var at: Int64
}
