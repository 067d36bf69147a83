import Messages

/// Conditions (`ConditionTable`): added to a monitor under an identifier (for every device or
/// one), replaced, removed, and looked up; each is compiled once into what the hot path tests.
extension RegionEngine {
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
        try monitors.checkOwner(owner, of: spec.monitor)
        let existing = entry(monitor: spec.monitor, identifier: spec.identifier)
        if existing == nil, owner != nil { try monitors.checkRoom(in: spec.monitor) }
        // Compiled (its UUID named) before the one it replaces goes, so a refusal changes nothing.
        let kind: ConditionTable.Kind = switch spec.condition {
        case let .beacon(uuid, major, minor, exitTimeout):
            .beacon(Matcher(uuid: try nameUUID(uuid), major: major, minor: minor), exitMilliseconds: Self.milliseconds(exitTimeout ?? settings.exitTimeout))
        case let .circle(latitude, longitude, radius, hysteresis, dwell):
            .circle(Circle(latitude: latitude, longitude: longitude, radius: radius, hysteresis: hysteresis ?? settings.hysteresis,
                           dwellMilliseconds: Self.milliseconds(dwell ?? settings.dwell)))
        }
        var replaced = 0
        if let existing { replaced = removeEntry(existing) }
        let e = conditions.insert(spec, kind: kind)
        monitors.append(e, to: spec.monitor)

        // Devices already known: the assumption, and beacon conditions they cannot evaluate.
        var effects = RegionEffects()
        let at = now.milliseconds
        let affected: [Int] = if let device = spec.deviceId { devices.slot(device).map { [$0] } ?? [] } else { Array(devices.occupiedSlots) }
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
        try monitors.checkOwner(owner, of: name)
        guard let e = entry(monitor: name, identifier: identifier) else { throw MonitorTable.unknownCondition(name, identifier) }
        return removeEntry(e)
    }

    /// Removes a condition from every part that holds it. Returns how many records went with it.
    private func removeEntry(_ e: Int) -> Int {
        guard let entry = conditions.remove(e) else { return 0 }
        monitors.remove(e, from: entry.spec.monitor)
        if case .beacon(let matcher, _) = entry.kind { uuids.unname(matcher.uuid) }
        if let device = entry.spec.deviceId {
            guard let slot = devices.slot(device) else { return 0 }
            return devices[slot].dropRecords(of: e)
        }
        return devices.dropRecords(of: e)
    }

    /// The entry of the condition under an identifier.
    func entry(monitor: String, identifier: String) -> Int? {
        monitors.entries(of: monitor)?.first { conditions[$0]?.spec.identifier == identifier }
    }

    /// The condition under an identifier.
    public func spec(monitor: String, identifier: String) -> ConditionSpec? {
        entry(monitor: monitor, identifier: identifier).flatMap { conditions[$0]?.spec }
    }

    /// Conditions of a monitor, in the order added (for storage).
    public func specs(monitor: String) -> [ConditionSpec] {
        monitors.entries(of: monitor)?.compactMap { conditions[$0]?.spec } ?? []
    }

    /// A condition names `uuid`: its index. When the table is full, retired UUIDs nothing refers
    /// to are recycled first; when none can be, the condition is refused.
    private func nameUUID(_ uuid: String) throws(ServiceError) -> Int16 {
        if let index = uuids.name(uuid) { return index }
        if uuids.recycle(referenced: devices.referencedUUIDs(indexCount: uuids.indexCount)) > 0, let index = uuids.name(uuid) { return index }
        throw ServiceError(.conditionLimitExceeded, "conditions already name \(BeaconUUIDTable.capacity) distinct beacon UUIDs, the most region-monitor holds")
    }
}
