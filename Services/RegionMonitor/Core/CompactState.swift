import Messages
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A beacon identity with the UUID interned: 6 bytes instead of a 36-character string.
struct CompactBeacon: Equatable {
    var uuid: Int16
    var major: UInt16
    var minor: UInt16
}

/// A beacon condition as the hot path tests it.
struct Matcher {
    var uuid: Int16
    var major: Int?
    var minor: Int?

    func matches(_ beacon: CompactBeacon) -> Bool {
        beacon.uuid == uuid && (major.map { $0 == Int(beacon.major) } ?? true) && (minor.map { $0 == Int(beacon.minor) } ?? true)
    }
}

/// A circle in the units the engine tests it with.
struct Circle {
    var latitude: Double
    var longitude: Double
    var radius: Double
    var hysteresis: Double
    var dwellMilliseconds: Int64
}

/// Event flags as a bit set, in `EventFlag.allCases` order.
struct FlagSet: Equatable {
    var bits: UInt8 = 0

    static let none = FlagSet()
    static let accuracyLimited = FlagSet(.accuracyLimited)
    static let authorizationDenied = FlagSet(.authorizationDenied)
    static let conditionUnsupported = FlagSet(.conditionUnsupported)

    init() {}

    init(_ flag: EventFlag) {
        bits = 1 << UInt8(EventFlag.allCases.firstIndex(of: flag)!)
    }

    init(_ flags: [EventFlag]) {
        for flag in flags { bits |= FlagSet(flag).bits }
    }

    var flags: [EventFlag] {
        EventFlag.allCases.enumerated().filter { bits & (1 << UInt8($0.offset)) != 0 }.map(\.element)
    }
}

/// One condition's record for one device. Every change of state or flags is announced, so the
/// record's state, flags and refinement are those of its last event (when it has one).
struct CompactRecord {
    static let none = Int64.min
    /// The condition's entry in the engine.
    var entry: Int32
    var state: ConditionState
    var flags = FlagSet.none
    var refinement: CompactBeacon?
    /// The last matching sighting (beacon conditions).
    var lastSeen: Int64 = none
    /// Since when the device has been inside a circle that is waiting out its dwell time.
    var pendingSince: Int64 = none
    /// When the last event was announced; `none` while the state is only assumed.
    var eventDate: Int64 = none

    init(entry: Int, state: ConditionState) {
        self.entry = Int32(entry)
        self.state = state
    }
}

struct Heard {
    var beacon: CompactBeacon
    var proximity: Proximity
    var accuracy: Double
    var at: Int64
}

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

/// A binary min-heap of (deadline, device slot): the region timer's queue.
struct DeadlineHeap {
    struct Entry {
        var due: Int64
        var slot: Int
        var generation: UInt32
    }

    private var entries: [Entry] = []

    var count: Int { entries.count }

    func peek() -> Entry? { entries.first }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].due < entries[parent].due else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() {
        guard !entries.isEmpty else { return }
        entries.swapAt(0, entries.count - 1)
        entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].due < entries[smallest].due { smallest = left }
            if right < entries.count, entries[right].due < entries[smallest].due { smallest = right }
            if smallest == parent { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

/// Distances on the Earth's surface (haversine on the mean radius): good to well under a metre
/// at café scale, which is far inside any fix's uncertainty.
enum Geodesy {
    static let earthRadius = 6_371_008.8

    static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let toRadians = Double.pi / 180
        let dLat = (lat2 - lat1) * toRadians, dLon = (lon2 - lon1) * toRadians
        let sLat = sin(dLat / 2), sLon = sin(dLon / 2)
        let a = sLat * sLat + cos(lat1 * toRadians) * cos(lat2 * toRadians) * sLon * sLon
        return 2 * earthRadius * asin(min(1, a.squareRoot()))
    }
}
