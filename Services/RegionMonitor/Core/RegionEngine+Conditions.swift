import Messages

/// Conditions: added to a monitor under an identifier (for every device or one), replaced,
/// removed, and looked up; each is compiled once into what the hot path tests.
extension RegionEngine {
    /// A condition as the engine evaluates it.
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
        // Compiled (its UUID named) before the one it replaces goes, so a refusal changes nothing.
        let kind: Kind = switch spec.condition {
        case let .beacon(uuid, major, minor, exitTimeout):
            .beacon(Matcher(uuid: try nameUUID(uuid), major: major, minor: minor), exitMilliseconds: Self.milliseconds(exitTimeout ?? settings.exitTimeout))
        case let .circle(latitude, longitude, radius, hysteresis, dwell):
            .circle(Circle(latitude: latitude, longitude: longitude, radius: radius, hysteresis: hysteresis ?? settings.hysteresis,
                           dwellMilliseconds: Self.milliseconds(dwell ?? settings.dwell)))
        }
        var replaced = 0
        if let existing { replaced = removeEntry(existing) }
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
            case .beacon(let matcher, let exit): beaconMatchers.append((e, matcher, exit))
            case .circle: circleEntries.append(e)
            }
            if spec.assuming != nil { assumedEntries.append(e) }
        }
        if case .beacon(_, let exit) = kind { heardMilliseconds = max(heardMilliseconds, exit) }

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
        if case .beacon(let matcher, _) = entry.kind { unnameUUID(matcher.uuid) }
        entries[e] = nil
        freeEntries.append(e)
        // Only the longest exit timeout going can shorten the retention (adding one is O(1)).
        if case .beacon(_, let exit) = entry.kind, exit >= heardMilliseconds { updateHeardRetention() }
        return removed
    }

    /// Heard beacons are kept for the longest exit timeout, or the nearest freshness if longer.
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

    /// Conditions of a monitor, in the order added (for storage).
    public func specs(monitor: String) -> [ConditionSpec] {
        monitors[monitor]?.entries.compactMap { entries[$0]?.spec } ?? []
    }
}
