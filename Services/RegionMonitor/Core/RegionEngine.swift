import Messages

/// What the shell must store and publish after an input: each changed record with its event
/// (written with the record in one transaction) and a changed nearest beacon.
public struct RegionEffects: Sendable, Equatable {
    public var events: [RegionEvent] = []
    public var nearest: [NearestBeacon] = []
    public var isEmpty: Bool { events.isEmpty && nearest.isEmpty }
    public init() {}
}

/// region-monitor's beacon rules for every device at once: CLMonitor records per
/// (device, condition), events only on a change of state, exit by timer, and the nearest
/// near/immediate beacon per device (far and unknown never switch the café).
/// Synchronous and deterministic; every input carries the time.
///
/// This is the hot path (every phone ranges about once a second), so a device's state is one
/// compact value found with one dictionary lookup; identities are interned and public values
/// (`ConditionRecord`, `RegionEvent`, `NearestBeacon`) are built only when asked for or announced.
public final class RegionEngine {
    public let monitor: String
    public private(set) var conditions: [BeaconCondition]
    /// How long a near/immediate sighting counts for the nearest-beacon answer.
    public let nearestFreshness: Double

    private var slots: [String: Int] = [:]
    private var devices: [DeviceState] = []
    private var freeSlots: [Int] = []
    private var uuids: [String] = []
    private var uuidIndex: [String: Int16] = [:]
    private var lastUUID: (text: String, index: Int16)?
    private var matchers: [Matcher] = []
    /// Heard beacons are kept this long: the longest exit timeout, or the freshness if longer.
    private let heardMilliseconds: Int64
    private let freshnessMilliseconds: Int64
    /// Each condition's exit timeout in whole milliseconds, rounded up so a device is never
    /// checked before its exit can be due.
    private let exitMilliseconds: [Int64]
    /// When each device next needs the timer (an exit, a stale nearest beacon, an expiry), so a
    /// tick touches only the devices that are due instead of walking all of them.
    private var due = DeadlineHeap()

    public init(monitor: String, conditions: [BeaconCondition], nearestFreshness: Double = 10) {
        self.monitor = monitor
        self.conditions = conditions
        self.nearestFreshness = nearestFreshness
        heardMilliseconds = Int64((max(conditions.map(\.exitTimeout).max() ?? nearestFreshness, nearestFreshness) * 1000).rounded())
        freshnessMilliseconds = Int64((nearestFreshness * 1000).rounded())
        exitMilliseconds = conditions.map { Int64(($0.exitTimeout * 1000).rounded(.up)) }
        matchers = conditions.map { Matcher(uuid: intern($0.uuid), major: $0.major, minor: $0.minor) }
    }

    /// Devices with any state held.
    public var trackedDevices: Int { slots.count }

    /// Restores a record from storage. A satisfied record's exit timeout restarts at `now`:
    /// nothing unchanged is re-announced, and a device gone while we were down exits one timeout later.
    public func restore(deviceId: String, identifier: String, record: ConditionRecord, now: Timestamp) {
        guard let c = conditions.firstIndex(where: { $0.identifier == identifier }) else { return }
        let slot = slotFor(deviceId)
        var compact = CompactRecord()
        compact.exists = true
        compact.state = record.state
        compact.refinement = record.refinement.map(compactBeacon)
        compact.lastSeen = record.state == .satisfied ? now.milliseconds : (record.lastSeen?.milliseconds ?? CompactRecord.none)
        compact.lastEventDate = record.lastEvent?.date.milliseconds ?? CompactRecord.none
        compact.lastEventFlags = record.lastEvent?.flags ?? []
        devices[slot].setRecord(c, compact, conditionCount: conditions.count)
        schedule(slot)
    }

    /// Restores the last announced nearest beacon of a device, as if its beacon were heard at `now`
    /// (but never nearer than any real sighting): a device that stays silent after a restart has
    /// it cleared one exit timeout later, like a satisfied record.
    public func restoreNearest(_ value: NearestBeacon, now: Timestamp) {
        guard let beacon = value.beacon else { return }
        let slot = slotFor(value.deviceId)
        let compact = compactBeacon(beacon)
        devices[slot].nearest = Nearest(beacon: compact, proximity: value.proximity ?? .near, date: value.date.milliseconds)
        devices[slot].hear(compact, proximity: value.proximity ?? .near, accuracy: .infinity, at: now.milliseconds)
        schedule(slot)
    }

    public func record(deviceId: String, identifier: String) -> ConditionRecord? {
        guard let slot = slots[deviceId], let c = conditions.firstIndex(where: { $0.identifier == identifier }),
              c < devices[slot].records.count, devices[slot].records[c].exists
        else { return nil }
        return publicRecord(devices[slot].records[c], condition: c, deviceId: deviceId)
    }

    public func nearestBeacon(deviceId: String) -> NearestBeacon? {
        guard let slot = slots[deviceId], let nearest = devices[slot].nearest else { return nil }
        return NearestBeacon(deviceId: deviceId, beacon: identity(nearest.beacon), proximity: nearest.proximity, date: Timestamp(milliseconds: nearest.date))
    }

    /// A sighting: satisfies every matching condition not yet satisfied; may change the nearest beacon.
    public func sighting(_ s: Sighting) -> RegionEffects {
        var effects = RegionEffects()
        let beacon = compactBeacon(s.beacon)
        let at = s.observedAt.milliseconds
        let slot = slotFor(s.deviceId)
        for (c, matcher) in matchers.enumerated() where matcher.matches(beacon) {
            if devices[slot].records.isEmpty { devices[slot].records = Array(repeating: CompactRecord(), count: conditions.count) }
            var record = devices[slot].records[c]
            record.exists = true
            record.lastSeen = record.lastSeen == CompactRecord.none ? at : max(record.lastSeen, at)
            if record.state != .satisfied {
                record.state = .satisfied
                record.refinement = beacon
                record.lastEventDate = at
                record.lastEventFlags = []
                effects.events.append(RegionEvent(monitor: monitor, identifier: conditions[c].identifier, deviceId: s.deviceId, state: .satisfied,
                                                  refinement: s.beacon, flags: [], date: s.observedAt))
            }
            devices[slot].records[c] = record
        }
        devices[slot].hear(beacon, proximity: s.proximity, accuracy: s.accuracy, at: at)
        if let changed = updateNearest(slot: slot, now: at) { effects.nearest.append(changed) }
        // New sightings only move a device's deadlines later: one scheduled check suffices, and
        // when it comes due early the device is simply checked and scheduled again.
        if devices[slot].scheduled == nil { schedule(slot) }
        return effects
    }

    /// Fires exit timeouts: a satisfied record with no matching sighting for `exitTimeout` becomes
    /// unsatisfied and its refinement is cleared. Called by a timer, not by the next message.
    /// Output order is stable: by device id, then conditions in the order they were added.
    public func tick(now: Timestamp) -> RegionEffects {
        let at = now.milliseconds
        var changed: [(deviceId: String, events: [RegionEvent], nearest: NearestBeacon?)] = []
        while let next = due.peek(), next.due <= at {
            due.pop()
            let slot = next.slot
            // A purged (and maybe reused) slot, or an entry superseded by a later schedule.
            guard slot < devices.count, devices[slot].scheduled == next.due, devices[slot].generation == next.generation else { continue }
            devices[slot].scheduled = nil
            var events: [RegionEvent] = []
            for c in devices[slot].records.indices where devices[slot].records[c].state == .satisfied {
                var record = devices[slot].records[c]
                guard record.lastSeen != CompactRecord.none,
                      Double(at - record.lastSeen) / 1000 >= conditions[c].exitTimeout
                else { continue }
                record.state = .unsatisfied
                record.refinement = nil
                record.lastEventDate = at
                record.lastEventFlags = []
                devices[slot].records[c] = record
                events.append(RegionEvent(monitor: monitor, identifier: conditions[c].identifier, deviceId: devices[slot].id, state: .unsatisfied,
                                          refinement: nil, flags: [], date: now))
            }
            var nearest: NearestBeacon?
            if !devices[slot].heard.isEmpty || devices[slot].nearest != nil {
                devices[slot].heard.removeAll { at - $0.at >= heardMilliseconds }
                nearest = updateNearest(slot: slot, now: at)
            }
            schedule(slot, after: at)
            if !events.isEmpty || nearest != nil { changed.append((devices[slot].id, events, nearest)) }
        }
        var effects = RegionEffects()
        for entry in changed.sorted(by: { $0.deviceId < $1.deviceId }) {
            effects.events += entry.events
            if let nearest = entry.nearest { effects.nearest.append(nearest) }
        }
        return effects
    }

    /// Puts a device on the timer at its earliest deadline: a satisfied record's exit, a heard
    /// beacon going stale for the nearest answer, or a heard beacon expiring. None: off the timer.
    /// From inside a tick the deadline is strictly after that tick, so a tick always ends.
    private func schedule(_ slot: Int, after now: Int64? = nil) {
        var earliest = Int64.max
        for (c, record) in devices[slot].records.enumerated() where record.state == .satisfied && record.lastSeen != CompactRecord.none {
            earliest = min(earliest, record.lastSeen + exitMilliseconds[c])
        }
        for heard in devices[slot].heard {
            if heard.proximity.decidesPlace { earliest = min(earliest, heard.at + freshnessMilliseconds + 1) }
            earliest = min(earliest, heard.at + heardMilliseconds)
        }
        guard earliest != Int64.max else {
            devices[slot].scheduled = nil
            return
        }
        if let now { earliest = max(earliest, now + 1) }
        devices[slot].scheduled = earliest
        due.push(DeadlineHeap.Entry(due: earliest, slot: slot, generation: devices[slot].generation))
    }

    /// Drops every piece of state for a device (authorization withdrawn). Returns whether it held any.
    @discardableResult
    public func purge(deviceId: String) -> Bool {
        guard let slot = slots.removeValue(forKey: deviceId) else { return false }
        let held = devices[slot].holdsState
        devices[slot] = DeviceState(id: "", generation: devices[slot].generation &+ 1)
        freeSlots.append(slot)
        return held
    }

    // MARK: Nearest beacon

    /// The nearest beacon decides only when near or immediate. With none fresh, the current answer
    /// stands while any beacon of its café is still heard (far must not switch the café) and is
    /// cleared once its café has gone silent.
    private func updateNearest(slot: Int, now: Int64) -> NearestBeacon? {
        let freshness = nearestFreshness
        var best: Heard?
        for heard in devices[slot].heard where heard.proximity.decidesPlace && Double(now - heard.at) / 1000 <= freshness {
            if let current = best {
                if heard.accuracy < current.accuracy
                    || (heard.accuracy == current.accuracy && identity(heard.beacon).description < identity(current.beacon).description) {
                    best = heard
                }
            } else {
                best = heard
            }
        }
        let current = devices[slot].nearest
        if best == nil, let current, devices[slot].heard.contains(where: { $0.beacon.uuid == current.beacon.uuid && $0.beacon.major == current.beacon.major }) {
            return nil
        }
        if best?.beacon == current?.beacon { return nil }
        devices[slot].nearest = best.map { Nearest(beacon: $0.beacon, proximity: $0.proximity, date: now) }
        return NearestBeacon(deviceId: devices[slot].id, beacon: best.map { identity($0.beacon) }, proximity: best?.proximity, date: Timestamp(milliseconds: now))
    }

    // MARK: Compact state

    private func slotFor(_ deviceId: String) -> Int {
        if let slot = slots[deviceId] { return slot }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            devices[slot] = DeviceState(id: deviceId, generation: devices[slot].generation)
        } else {
            slot = devices.count
            devices.append(DeviceState(id: deviceId))
        }
        slots[deviceId] = slot
        return slot
    }

    private func intern(_ uuid: String) -> Int16 {
        if let last = lastUUID, last.text == uuid { return last.index }
        let index: Int16
        if let known = uuidIndex[uuid] {
            index = known
        } else {
            index = Int16(truncatingIfNeeded: uuids.count)
            uuids.append(uuid)
            uuidIndex[uuid] = index
        }
        lastUUID = (uuid, index)
        return index
    }

    private func compactBeacon(_ beacon: BeaconIdentity) -> CompactBeacon {
        CompactBeacon(uuid: intern(beacon.uuid), major: UInt16(truncatingIfNeeded: beacon.major), minor: UInt16(truncatingIfNeeded: beacon.minor))
    }

    private func identity(_ beacon: CompactBeacon) -> BeaconIdentity {
        BeaconIdentity(uuid: uuids[Int(beacon.uuid)], major: Int(beacon.major), minor: Int(beacon.minor))
    }

    private func publicRecord(_ record: CompactRecord, condition c: Int, deviceId: String) -> ConditionRecord {
        let refinement = record.refinement.map(identity)
        let lastEvent = record.lastEventDate == CompactRecord.none ? nil
            : RegionEvent(monitor: monitor, identifier: conditions[c].identifier, deviceId: deviceId, state: record.state,
                          refinement: refinement, flags: record.lastEventFlags, date: Timestamp(milliseconds: record.lastEventDate))
        return ConditionRecord(state: record.state, refinement: refinement,
                               lastSeen: record.lastSeen == CompactRecord.none ? nil : Timestamp(milliseconds: record.lastSeen), lastEvent: lastEvent)
    }
}

/// A beacon identity with the UUID interned: 6 bytes instead of a 36-character string.
struct CompactBeacon: Equatable {
    var uuid: Int16
    var major: UInt16
    var minor: UInt16
}

/// A condition as the hot path tests it.
struct Matcher {
    var uuid: Int16
    var major: Int?
    var minor: Int?

    func matches(_ beacon: CompactBeacon) -> Bool {
        beacon.uuid == uuid && (major.map { $0 == Int(beacon.major) } ?? true) && (minor.map { $0 == Int(beacon.minor) } ?? true)
    }
}

/// One condition's record for one device. Its last event is derived: the engine announces every
/// change of state, so the last event always carries the record's state and refinement.
struct CompactRecord {
    static let none = Int64.min
    var exists = false
    var state: ConditionState = .unknown
    var refinement: CompactBeacon?
    var lastSeen: Int64 = none
    var lastEventDate: Int64 = none
    var lastEventFlags: [EventFlag] = []
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

/// Everything the engine holds for one device.
struct DeviceState {
    var id: String
    /// Bumped when the slot is freed, so timer entries of a purged device are ignored.
    var generation: UInt32 = 0
    /// The deadline this device is on the timer for, if any.
    var scheduled: Int64?
    /// One per condition once the device matched any; empty before.
    var records: [CompactRecord] = []
    /// The latest sighting of each beacon heard recently.
    var heard: [Heard] = []
    var nearest: Nearest?

    var holdsState: Bool { !heard.isEmpty || nearest != nil || records.contains { $0.exists } }

    mutating func setRecord(_ c: Int, _ record: CompactRecord, conditionCount: Int) {
        if records.isEmpty { records = Array(repeating: CompactRecord(), count: conditionCount) }
        records[c] = record
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
