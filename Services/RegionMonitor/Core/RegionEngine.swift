import Messages

/// region-monitor's rules for every device at once (CLMonitor semantics): monitors by name with
/// one owner each, conditions added under identifiers for every device or one, records per
/// (device, condition), events only when a record's state or flags change, beacon exits and
/// dwell times fired by a timer, and the nearest near/immediate beacon per device (far and
/// unknown never switch the café). Synchronous and deterministic; every input carries the time.
///
/// Sightings are the hot path (every phone ranges about once a second), so a device's state is
/// one compact value found with one dictionary lookup; beacon identities are interned and public
/// values (`ConditionRecord`, `RegionEvent`, `NearestBeacon`) are built only when asked for or
/// announced. Fixes never leave the engine except as yes/no answers and orderings.
public final class RegionEngine {
    public let settings: RegionSettings

    struct Monitor {
        var owner: String?
        var builtIn: Bool
        /// Its conditions' entries, in the order they were added.
        var entries: [Int] = []
    }

    enum Kind {
        case beacon(Matcher, exitMilliseconds: Int64)
        case circle(Circle)
    }

    struct Entry {
        var spec: ConditionSpec
        /// Increases with every add: events of one device come out in this order.
        var order: Int
        var kind: Kind
    }

    var monitors: [String: Monitor] = [:]
    var entries: [Entry?] = []
    private var freeEntries: [Int] = []
    private var nextOrder = 0
    /// Beacon conditions for every device, as the sighting path walks them.
    private var beaconMatchers: [(entry: Int, matcher: Matcher)] = []
    /// Circles for every device.
    var circleEntries: [Int] = []
    /// Conditions for one device, by device id.
    var scoped: [String: [Int]] = [:]
    /// Conditions for every device that assume a state: a new device starts with their records.
    private var assumedEntries: [Int] = []

    var slots: [String: Int] = [:]
    var devices: [DeviceState] = []
    private var freeSlots: [Int] = []
    private var uuids: [String] = []
    private var uuidIndex: [String: Int16] = [:]
    private var lastUUID: (text: String, index: Int16)?
    /// Heard beacons are kept this long: the longest exit timeout, or the freshness if longer.
    private var heardMilliseconds: Int64
    private let freshnessMilliseconds: Int64
    /// When each device next needs the timer (an exit, a dwell, a stale nearest beacon, an
    /// expiry), so a tick touches only the devices that are due instead of walking all of them.
    private var due = DeadlineHeap()

    public init(settings: RegionSettings = RegionSettings()) {
        self.settings = settings
        freshnessMilliseconds = Self.milliseconds(settings.nearestFreshness)
        heardMilliseconds = freshnessMilliseconds
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

    static func milliseconds(_ seconds: Double) -> Int64 { Int64((seconds * 1000).rounded()) }

    // MARK: Conditions

    /// Adds a condition under its identifier, replacing one already there (its records go with
    /// it, unannounced). `owner` nil is the service itself (the catalog, a restore): no ownership
    /// or limit checks. Devices already tracked start with the assumed state, if any; devices
    /// that cannot range get the condition flagged `conditionUnsupported`.
    @discardableResult
    public func add(_ spec: ConditionSpec, owner: String?, now: Timestamp) throws(ServiceError) -> (replacedRecords: Int, effects: RegionEffects) {
        try ConditionRules.validateMonitorName(spec.monitor)
        try ConditionRules.validateIdentifier(spec.identifier)
        if let device = spec.deviceId { try ConditionRules.validateDeviceID(device) }
        var spec = spec
        spec.condition = try ConditionRules.validate(spec.condition)
        guard let monitor = monitors[spec.monitor] else { throw Self.unknownMonitor(spec.monitor) }
        if let owner { try checkOwner(owner, of: spec.monitor, monitor) }
        let existing = entry(monitor: spec.monitor, identifier: spec.identifier)
        if existing == nil, owner != nil, monitor.entries.count >= settings.conditionLimit {
            throw ServiceError(.conditionLimitExceeded, "monitor \(spec.monitor) already holds \(monitor.entries.count) conditions, the limit")
        }
        var replaced = 0
        if let existing { replaced = removeEntry(existing) }

        let kind: Kind = switch spec.condition {
        case let .beacon(uuid, major, minor, exitTimeout):
            .beacon(Matcher(uuid: intern(uuid), major: major, minor: minor), exitMilliseconds: Self.milliseconds(exitTimeout ?? settings.exitTimeout))
        case let .circle(latitude, longitude, radius, hysteresis, dwell):
            .circle(Circle(latitude: latitude, longitude: longitude, radius: radius, hysteresis: hysteresis ?? settings.hysteresis,
                           dwellMilliseconds: Self.milliseconds(dwell ?? settings.dwell)))
        }
        let e: Int
        if let free = freeEntries.popLast() {
            e = free
        } else {
            e = entries.count
            entries.append(nil)
        }
        entries[e] = Entry(spec: spec, order: nextOrder, kind: kind)
        nextOrder += 1
        monitors[spec.monitor]?.entries.append(e)
        if let device = spec.deviceId {
            scoped[device, default: []].append(e)
        } else {
            switch kind {
            case .beacon(let matcher, _): beaconMatchers.append((e, matcher))
            case .circle: circleEntries.append(e)
            }
            if spec.assuming != nil { assumedEntries.append(e) }
        }
        updateHeardRetention()

        // Devices already known: the assumption, and beacon conditions they cannot evaluate.
        var effects = RegionEffects()
        let at = now.milliseconds
        let affected: [Int] = if let device = spec.deviceId { slots[device].map { [$0] } ?? [] } else { Array(slots.values) }
        for slot in affected.sorted(by: { devices[$0].id < devices[$1].id }) {
            if spec.assuming != nil { _ = ensureRecord(slot, e, at: at) }
            if devices[slot].rangingUnavailable, case .beacon = kind {
                let i = ensureRecord(slot, e, at: at)
                set(slot, i, state: .unknown, flags: .conditionUnsupported, refinement: nil, at: at, into: &effects.events)
            }
            schedule(slot)
        }
        return (replaced, effects)
    }

    /// Removes a condition with every record of it.
    public func remove(monitor name: String, identifier: String, owner: String?) throws(ServiceError) -> Int {
        guard let monitor = monitors[name] else { throw Self.unknownMonitor(name) }
        if let owner { try checkOwner(owner, of: name, monitor) }
        guard let e = entry(monitor: name, identifier: identifier) else { throw Self.unknownCondition(name, identifier) }
        return removeEntry(e)
    }

    private func removeEntry(_ e: Int) -> Int {
        guard let entry = entries[e] else { return 0 }
        let target = Int32(e)
        var removed = 0
        func drop(_ slot: Int) {
            let before = devices[slot].records.count
            devices[slot].records.removeAll { $0.entry == target }
            removed += before - devices[slot].records.count
        }
        if let device = entry.spec.deviceId {
            if let slot = slots[device] { drop(slot) }
            scoped[device]?.removeAll { $0 == e }
            if scoped[device]?.isEmpty == true { scoped[device] = nil }
        } else {
            for slot in slots.values { drop(slot) }
        }
        beaconMatchers.removeAll { $0.entry == e }
        circleEntries.removeAll { $0 == e }
        assumedEntries.removeAll { $0 == e }
        monitors[entry.spec.monitor]?.entries.removeAll { $0 == e }
        entries[e] = nil
        freeEntries.append(e)
        updateHeardRetention()
        return removed
    }

    private func updateHeardRetention() {
        var longest = freshnessMilliseconds
        for case let entry? in entries {
            if case .beacon(_, let exit) = entry.kind { longest = max(longest, exit) }
        }
        heardMilliseconds = longest
    }

    func entry(monitor: String, identifier: String) -> Int? {
        monitors[monitor]?.entries.first { entries[$0]?.spec.identifier == identifier }
    }

    /// The condition under an identifier.
    public func spec(monitor: String, identifier: String) -> ConditionSpec? {
        entry(monitor: monitor, identifier: identifier).flatMap { entries[$0]?.spec }
    }

    /// A monitor's condition identifiers, sorted; nil for an unknown monitor.
    public func identifiers(monitor: String) -> [String]? {
        monitors[monitor].map { $0.entries.compactMap { entries[$0]?.spec.identifier }.sorted() }
    }

    /// A device's record of a condition: the one held, or the assumed state while none is;
    /// nil when the condition does not exist or does not apply to the device.
    public func record(monitor: String, identifier: String, deviceId: String) -> ConditionRecord? {
        guard let e = entry(monitor: monitor, identifier: identifier), let entry = entries[e] else { return nil }
        if let device = entry.spec.deviceId, device != deviceId { return nil }
        if let slot = slots[deviceId], let i = devices[slot].recordIndex(e) {
            return publicRecord(devices[slot].records[i], deviceId: deviceId)
        }
        return entry.spec.assuming.map { ConditionRecord(state: $0, refinement: nil, lastSeen: nil, lastEvent: nil) }
    }

    /// The record of the first monitor holding this identifier (for engines with one monitor).
    public func record(deviceId: String, identifier: String) -> ConditionRecord? {
        for name in monitors.keys.sorted() {
            if let record = record(monitor: name, identifier: identifier, deviceId: deviceId) { return record }
        }
        return nil
    }

    // MARK: Sightings

    /// A sighting: satisfies every matching condition not yet satisfied, refined to the nearest
    /// matching beacon; may change the nearest beacon.
    public func sighting(_ s: Sighting) -> RegionEffects {
        var effects = RegionEffects()
        let beacon = compactBeacon(s.beacon)
        let at = s.observedAt.milliseconds
        let slot = slotFor(s.deviceId, at: at)
        devices[slot].hear(beacon, proximity: s.proximity, accuracy: s.accuracy, at: at)
        for (e, matcher) in beaconMatchers where matcher.matches(beacon) {
            satisfy(slot, e, matcher, at: at, into: &effects.events)
        }
        if !scoped.isEmpty, let mine = scoped[s.deviceId] {
            for e in mine {
                if case .beacon(let matcher, _)? = entries[e]?.kind, matcher.matches(beacon) {
                    satisfy(slot, e, matcher, at: at, into: &effects.events)
                }
            }
        }
        if let changed = updateNearest(slot: slot, now: at) { effects.nearest.append(changed) }
        // New sightings only move a device's deadlines later: one scheduled check suffices, and
        // when it comes due early the device is simply checked and scheduled again.
        if devices[slot].scheduled == nil { schedule(slot) }
        return effects
    }

    private func satisfy(_ slot: Int, _ e: Int, _ matcher: Matcher, at: Int64, into events: inout [RegionEvent]) {
        let i = ensureRecord(slot, e, at: at)
        let lastSeen = devices[slot].records[i].lastSeen
        devices[slot].records[i].lastSeen = lastSeen == CompactRecord.none ? at : max(lastSeen, at)
        let record = devices[slot].records[i]
        if record.state != .satisfied || record.flags != .none {
            set(slot, i, state: .satisfied, flags: .none, refinement: nearestMatching(slot, matcher), at: at, into: &events)
        }
    }

    /// The nearest heard beacon a condition matches: by proximity, then estimated distance.
    private func nearestMatching(_ slot: Int, _ matcher: Matcher) -> CompactBeacon? {
        var best: Heard?
        for heard in devices[slot].heard where matcher.matches(heard.beacon) {
            guard let current = best else {
                best = heard
                continue
            }
            let a = heard.accuracy < 0 ? Double.infinity : heard.accuracy, b = current.accuracy < 0 ? Double.infinity : current.accuracy
            if heard.proximity < current.proximity || (heard.proximity == current.proximity && a < b) { best = heard }
        }
        return best?.beacon
    }

    // MARK: Device status

    /// A device's ranging capability: beacon conditions it cannot evaluate are flagged
    /// `conditionUnsupported` (state unknown) until it can range again.
    public func status(deviceId: String, rangingAvailable: Bool, at time: Timestamp) -> RegionEffects {
        var effects = RegionEffects()
        guard let slot = rangingAvailable ? slots[deviceId] : slotFor(deviceId, at: time.milliseconds),
              devices[slot].rangingUnavailable == rangingAvailable
        else { return effects }
        let at = time.milliseconds
        devices[slot].rangingUnavailable = !rangingAvailable
        var beaconEntries = beaconMatchers.map(\.entry)
        for e in scoped[deviceId] ?? [] {
            if case .beacon? = entries[e]?.kind { beaconEntries.append(e) }
        }
        for e in beaconEntries.sorted(by: { entries[$0]!.order < entries[$1]!.order }) {
            if rangingAvailable {
                guard let i = devices[slot].recordIndex(e), devices[slot].records[i].flags == .conditionUnsupported else { continue }
                set(slot, i, state: .unknown, flags: .none, refinement: nil, at: at, into: &effects.events)
            } else {
                let i = ensureRecord(slot, e, at: at)
                set(slot, i, state: .unknown, flags: .conditionUnsupported, refinement: nil, at: at, into: &effects.events)
            }
        }
        schedule(slot)
        return effects
    }

    // MARK: Timer

    /// Fires what is due: a satisfied beacon record with no matching sighting for its exit timeout
    /// becomes unsatisfied (refinement cleared); a circle whose dwell time has passed inside
    /// becomes satisfied; stale beacons leave the nearest answer. Called by a timer, not by the
    /// next message. Output order is stable: by device id, then conditions in the order added.
    public func tick(now: Timestamp) -> RegionEffects {
        let at = now.milliseconds
        var changed: [(deviceId: String, events: [RegionEvent], nearest: NearestBeacon?)] = []
        while let next = due.peek(), next.due <= at {
            due.pop()
            let slot = next.slot
            // A purged (and maybe reused) slot, or an entry superseded by a later schedule.
            guard slot < devices.count, devices[slot].scheduled == next.due, devices[slot].generation == next.generation else { continue }
            devices[slot].scheduled = nil
            // Records sit in the order the device first met them; events go in the order added.
            var keyed: [(order: Int, event: RegionEvent)] = []
            for i in devices[slot].records.indices {
                let record = devices[slot].records[i]
                guard let entry = entries[Int(record.entry)] else { continue }
                var produced: [RegionEvent] = []
                switch entry.kind {
                case .beacon(_, let exit):
                    if record.state == .satisfied, record.lastSeen != CompactRecord.none, at - record.lastSeen >= exit {
                        set(slot, i, state: .unsatisfied, flags: .none, refinement: nil, at: at, into: &produced)
                    }
                case .circle(let circle):
                    if record.pendingSince != CompactRecord.none, at - record.pendingSince >= circle.dwellMilliseconds {
                        devices[slot].records[i].pendingSince = CompactRecord.none
                        set(slot, i, state: .satisfied, flags: .none, refinement: nil, at: at, into: &produced)
                    }
                }
                keyed += produced.map { (entry.order, $0) }
            }
            let events = keyed.sorted { $0.order < $1.order }.map(\.event)
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

    /// Puts a device on the timer at its earliest deadline: a satisfied beacon record's exit, a
    /// circle's dwell, a heard beacon going stale for the nearest answer or expiring. None: off
    /// the timer. From inside a tick the deadline is strictly after that tick, so a tick ends.
    func schedule(_ slot: Int, after now: Int64? = nil) {
        var earliest = Int64.max
        for record in devices[slot].records {
            guard let entry = entries[Int(record.entry)] else { continue }
            switch entry.kind {
            case .beacon(_, let exit):
                if record.state == .satisfied, record.lastSeen != CompactRecord.none { earliest = min(earliest, record.lastSeen + exit) }
            case .circle(let circle):
                if record.pendingSince != CompactRecord.none { earliest = min(earliest, record.pendingSince + circle.dwellMilliseconds) }
            }
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
        if let scheduled = devices[slot].scheduled, scheduled <= earliest, now == nil {
            // Already due no later than this: that check reschedules.
            return
        }
        devices[slot].scheduled = earliest
        due.push(DeadlineHeap.Entry(due: earliest, slot: slot, generation: devices[slot].generation))
    }

    // MARK: Purge and restore

    /// Drops every piece of state for a device (authorization withdrawn). Each record that was
    /// announced gets a last event: state unknown, flagged `authorizationDenied`.
    public func purge(deviceId: String, at time: Timestamp) -> RegionEffects {
        var effects = RegionEffects()
        guard let slot = slots.removeValue(forKey: deviceId) else { return effects }
        let announced = devices[slot].records
            .filter { $0.eventDate != CompactRecord.none && entries[Int($0.entry)] != nil }
            .sorted { entries[Int($0.entry)]!.order < entries[Int($1.entry)]!.order }
        for record in announced {
            let spec = entries[Int(record.entry)]!.spec
            effects.events.append(RegionEvent(monitor: spec.monitor, identifier: spec.identifier, deviceId: deviceId, state: .unknown,
                                              refinement: nil, flags: [.authorizationDenied], date: time))
        }
        devices[slot] = DeviceState(id: "", generation: devices[slot].generation &+ 1)
        freeSlots.append(slot)
        return effects
    }

    /// Restores a record from storage (its last event). A satisfied beacon record's exit timeout
    /// restarts at `now`: nothing unchanged is re-announced, and a device gone while the service
    /// was down exits one timeout later.
    public func restore(deviceId: String, monitor: String, identifier: String, lastEvent: RegionEvent, now: Timestamp) {
        guard let e = entry(monitor: monitor, identifier: identifier), let entry = entries[e] else { return }
        if let device = entry.spec.deviceId, device != deviceId { return }
        let slot = slotFor(deviceId, at: now.milliseconds)
        let i = ensureRecord(slot, e, at: now.milliseconds)
        var record = devices[slot].records[i]
        record.state = lastEvent.state
        record.flags = FlagSet(lastEvent.flags)
        record.refinement = lastEvent.refinement.map(compactBeacon)
        record.eventDate = lastEvent.date.milliseconds
        if case .beacon = entry.kind, record.state == .satisfied { record.lastSeen = now.milliseconds }
        devices[slot].records[i] = record
        schedule(slot)
    }

    /// Restores the last announced nearest beacon of a device, as if its beacon were heard at `now`
    /// (but never nearer than any real sighting): a device that stays silent after a restart has
    /// it cleared one exit timeout later, like a satisfied record.
    public func restoreNearest(_ value: NearestBeacon, now: Timestamp) {
        guard let beacon = value.beacon else { return }
        let slot = slotFor(value.deviceId, at: now.milliseconds)
        let compact = compactBeacon(beacon)
        devices[slot].nearest = Nearest(beacon: compact, proximity: value.proximity ?? .near, date: value.date.milliseconds)
        devices[slot].hear(compact, proximity: value.proximity ?? .near, accuracy: .infinity, at: now.milliseconds)
        schedule(slot)
    }

    /// Restores a device that said it cannot range (its flagged records are restored as records).
    public func restoreStatus(deviceId: String, rangingAvailable: Bool, now: Timestamp) {
        guard !rangingAvailable else { return }
        devices[slotFor(deviceId, at: now.milliseconds)].rangingUnavailable = true
    }

    // MARK: Records

    /// The record for a condition, made on first use with the condition's assumed state.
    func ensureRecord(_ slot: Int, _ e: Int, at: Int64) -> Int {
        if let i = devices[slot].recordIndex(e) { return i }
        var record = CompactRecord(entry: e, state: entries[e]?.spec.assuming ?? .unknown)
        if record.state == .satisfied, case .beacon? = entries[e]?.kind { record.lastSeen = at }
        devices[slot].records.append(record)
        return devices[slot].records.count - 1
    }

    /// Moves a record to a state and flags, announcing it when either changed.
    func set(_ slot: Int, _ i: Int, state: ConditionState, flags: FlagSet, refinement: CompactBeacon?, at: Int64, into events: inout [RegionEvent]) {
        var record = devices[slot].records[i]
        guard record.state != state || record.flags != flags else { return }
        record.state = state
        record.flags = flags
        record.refinement = state == .satisfied ? refinement : nil
        record.eventDate = at
        devices[slot].records[i] = record
        events.append(event(of: record, deviceId: devices[slot].id))
    }

    private func event(of record: CompactRecord, deviceId: String) -> RegionEvent {
        let spec = entries[Int(record.entry)]!.spec
        return RegionEvent(monitor: spec.monitor, identifier: spec.identifier, deviceId: deviceId, state: record.state,
                           refinement: record.refinement.map(identity), flags: record.flags.flags, date: Timestamp(milliseconds: record.eventDate))
    }

    private func publicRecord(_ record: CompactRecord, deviceId: String) -> ConditionRecord {
        ConditionRecord(state: record.state, refinement: record.refinement.map(identity),
                        lastSeen: record.lastSeen == CompactRecord.none ? nil : Timestamp(milliseconds: record.lastSeen),
                        lastEvent: record.eventDate == CompactRecord.none ? nil : event(of: record, deviceId: deviceId))
    }

    // MARK: Nearest beacon

    public func nearestBeacon(deviceId: String) -> NearestBeacon? {
        guard let slot = slots[deviceId], let nearest = devices[slot].nearest else { return nil }
        return NearestBeacon(deviceId: deviceId, beacon: identity(nearest.beacon), proximity: nearest.proximity, date: Timestamp(milliseconds: nearest.date))
    }

    /// The nearest beacon decides only when near or immediate. With none fresh, the current answer
    /// stands while any beacon of its café is still heard (far must not switch the café) and is
    /// cleared once its café has gone silent.
    private func updateNearest(slot: Int, now: Int64) -> NearestBeacon? {
        var best: Heard?
        for heard in devices[slot].heard where heard.proximity.decidesPlace && now - heard.at <= freshnessMilliseconds {
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

    // MARK: Monitors

    private func checkOwner(_ owner: String, of name: String, _ monitor: Monitor) throws(ServiceError) {
        if monitor.builtIn {
            throw ServiceError(.monitorOwned, "monitor \(name) is built from the campus catalog; change the catalog instead")
        }
        guard monitor.owner == owner else {
            throw ServiceError(.notMonitorOwner, monitor.owner.map { "monitor \(name) is held by \"\($0)\", not \"\(owner)\"" }
                ?? "open monitor \(name) as \"\(owner)\" before changing it")
        }
    }

    static func unknownMonitor(_ name: String) -> ServiceError {
        ServiceError(.unknownMonitor, "no monitor named \"\(name.prefix(64))\"")
    }

    static func unknownCondition(_ monitor: String, _ identifier: String) -> ServiceError {
        ServiceError(.unknownCondition, "monitor \(monitor) has no condition \"\(identifier.prefix(64))\"")
    }

    // MARK: Compact state

    func slotFor(_ deviceId: String, at: Int64) -> Int {
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
        // A new device starts with the records of conditions that assume a state.
        for e in assumedEntries { _ = ensureRecord(slot, e, at: at) }
        if !scoped.isEmpty, let mine = scoped[deviceId] {
            for e in mine where entries[e]?.spec.assuming != nil { _ = ensureRecord(slot, e, at: at) }
        }
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

    func compactBeacon(_ beacon: BeaconIdentity) -> CompactBeacon {
        CompactBeacon(uuid: intern(beacon.uuid), major: UInt16(truncatingIfNeeded: beacon.major), minor: UInt16(truncatingIfNeeded: beacon.minor))
    }

    func identity(_ beacon: CompactBeacon) -> BeaconIdentity {
        BeaconIdentity(uuid: uuids[Int(beacon.uuid)], major: Int(beacon.major), minor: Int(beacon.minor))
    }
}
