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
public final class RegionEngine {
    public let monitor: String
    public private(set) var conditions: [BeaconCondition]
    /// How long a near/immediate sighting counts for the nearest-beacon answer.
    public let nearestFreshness: Double
    private var records: [String: [String: ConditionRecord]] = [:]
    private var sightings: [String: [BeaconIdentity: (proximity: Proximity, accuracy: Double, at: Timestamp)]] = [:]
    private var nearest: [String: NearestBeacon] = [:]

    public init(monitor: String, conditions: [BeaconCondition], nearestFreshness: Double = 10) {
        self.monitor = monitor
        self.conditions = conditions
        self.nearestFreshness = nearestFreshness
    }

    /// Devices with any state held.
    public var trackedDevices: Int { Set(records.keys).union(sightings.keys).count }

    /// Restores a record from storage. A satisfied record's exit timeout restarts at `now`:
    /// nothing unchanged is re-announced, and a device gone while we were down exits one timeout later.
    public func restore(deviceId: String, identifier: String, record: ConditionRecord, now: Timestamp) {
        var r = record
        if r.state == .satisfied { r.lastSeen = now }
        records[deviceId, default: [:]][identifier] = r
    }

    /// Restores the last announced nearest beacon of a device, as if its beacon were heard at `now`
    /// (but never nearer than any real sighting): a device that stays silent after a restart has
    /// it cleared one exit timeout later, like a satisfied record.
    public func restoreNearest(_ value: NearestBeacon, now: Timestamp) {
        nearest[value.deviceId] = value
        if let beacon = value.beacon {
            sightings[value.deviceId, default: [:]][beacon] = (value.proximity ?? .near, .infinity, now)
        }
    }

    public func record(deviceId: String, identifier: String) -> ConditionRecord? { records[deviceId]?[identifier] }

    public func nearestBeacon(deviceId: String) -> NearestBeacon? { nearest[deviceId] }

    /// A sighting: satisfies every matching condition not yet satisfied; may change the nearest beacon.
    public func sighting(_ s: Sighting) -> RegionEffects {
        var effects = RegionEffects()
        for condition in conditions where condition.matches(s.beacon) {
            var record = records[s.deviceId]?[condition.identifier] ?? ConditionRecord(state: .unknown, refinement: nil, lastSeen: nil, lastEvent: nil)
            record.lastSeen = max(record.lastSeen ?? s.observedAt, s.observedAt)
            if record.state != .satisfied {
                record.state = .satisfied
                record.refinement = s.beacon
                let event = RegionEvent(monitor: monitor, identifier: condition.identifier, deviceId: s.deviceId, state: .satisfied,
                                        refinement: s.beacon, flags: [], date: s.observedAt)
                record.lastEvent = event
                effects.events.append(event)
            }
            records[s.deviceId, default: [:]][condition.identifier] = record
        }
        sightings[s.deviceId, default: [:]][s.beacon] = (s.proximity, s.accuracy, s.observedAt)
        if let changed = updateNearest(deviceId: s.deviceId, now: s.observedAt) { effects.nearest.append(changed) }
        return effects
    }

    /// Fires exit timeouts: a satisfied record with no matching sighting for `exitTimeout` becomes
    /// unsatisfied and its refinement is cleared. Called by a timer, not by the next message.
    public func tick(now: Timestamp) -> RegionEffects {
        var effects = RegionEffects()
        // Dictionary order differs from run to run: walk devices sorted and conditions in the
        // order they were added, so the same inputs always give the same events in the same order.
        for device in records.keys.sorted() {
            for condition in conditions {
                guard var record = records[device]?[condition.identifier], record.state == .satisfied,
                      let seen = record.lastSeen, now.seconds(since: seen) >= condition.exitTimeout
                else { continue }
                record.state = .unsatisfied
                record.refinement = nil
                let event = RegionEvent(monitor: monitor, identifier: condition.identifier, deviceId: device, state: .unsatisfied,
                                        refinement: nil, flags: [], date: now)
                record.lastEvent = event
                records[device]?[condition.identifier] = record
                effects.events.append(event)
            }
        }
        for device in sightings.keys.sorted() {
            let longest = conditions.map(\.exitTimeout).max() ?? nearestFreshness
            sightings[device] = sightings[device]?.filter { now.seconds(since: $0.value.at) < max(longest, nearestFreshness) }
            if let changed = updateNearest(deviceId: device, now: now) { effects.nearest.append(changed) }
            if sightings[device]?.isEmpty == true { sightings[device] = nil }
        }
        return effects
    }

    /// Drops every piece of state for a device (authorization withdrawn). Returns whether it held any.
    @discardableResult
    public func purge(deviceId: String) -> Bool {
        let held = records[deviceId] != nil || sightings[deviceId] != nil || nearest[deviceId] != nil
        records[deviceId] = nil
        sightings[deviceId] = nil
        nearest[deviceId] = nil
        return held
    }

    /// The nearest beacon decides only when near or immediate. With none fresh, the current answer
    /// stands while any beacon of its café is still heard (far must not switch the café) and is
    /// cleared once its café has gone silent.
    private func updateNearest(deviceId: String, now: Timestamp) -> NearestBeacon? {
        let heard = sightings[deviceId] ?? [:]
        let candidates = heard.filter { $0.value.proximity.decidesPlace && now.seconds(since: $0.value.at) <= nearestFreshness }
        let current = nearest[deviceId]
        var next: (beacon: BeaconIdentity, proximity: Proximity)?
        if let best = candidates.min(by: { ($0.value.accuracy, $0.key.description) < ($1.value.accuracy, $1.key.description) }) {
            next = (best.key, best.value.proximity)
        } else if let beacon = current?.beacon, heard.keys.contains(where: { $0.uuid == beacon.uuid && $0.major == beacon.major }) {
            return nil
        }
        if next?.beacon == current?.beacon { return nil }
        if next == nil && current == nil { return nil }
        let value = NearestBeacon(deviceId: deviceId, beacon: next?.beacon, proximity: next?.proximity, date: now)
        nearest[deviceId] = next == nil ? nil : value
        return value
    }
}
