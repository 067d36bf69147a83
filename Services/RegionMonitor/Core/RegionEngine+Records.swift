import Messages

/// Records: one per (device, condition), made on first use with the condition's assumed state,
/// announced by an event whenever their state or flags change, restored from their last event.
extension RegionEngine {
    /// A device's record of a condition: the one held, or the assumed state while none is;
    /// nil when the condition does not exist or does not apply to the device.
    public func record(monitor: String, identifier: String, deviceId: String) -> ConditionRecord? {
        guard let e = entry(monitor: monitor, identifier: identifier), let entry = conditions[e] else { return nil }
        if let device = entry.spec.deviceId, device != deviceId { return nil }
        if let slot = devices.slot(deviceId), let i = devices[slot].recordIndex(e) {
            return publicRecord(devices[slot].records[i], deviceId: deviceId)
        }
        return entry.spec.assuming.map { ConditionRecord(state: $0, refinement: nil, lastSeen: nil, lastEvent: nil) }
    }

    /// The record of the first monitor holding this identifier (for engines with one monitor).
    public func record(deviceId: String, identifier: String) -> ConditionRecord? {
        for name in monitors.names {
            if let record = record(monitor: name, identifier: identifier, deviceId: deviceId) { return record }
        }
        return nil
    }

    /// `monitor.record`: a condition and, for a device (the one asked about, or the one the
    /// condition applies to), its last event.
    public func monitorRecord(monitor: String, identifier: String, deviceId: String?) throws(ServiceError) -> MonitorRecord {
        guard monitors.info(monitor) != nil else { throw MonitorTable.unknownMonitorListed(monitor) }
        guard let spec = spec(monitor: monitor, identifier: identifier) else { throw MonitorTable.unknownCondition(monitor, identifier) }
        if let deviceId { try ConditionRules.validateDeviceID(deviceId) }
        if let deviceId, let only = spec.deviceId, only != deviceId {
            throw ServiceError(.invalidField, "condition \(identifier) applies to device \(only) only")
        }
        let device = deviceId ?? spec.deviceId
        let lastEvent = device.flatMap { record(monitor: monitor, identifier: identifier, deviceId: $0)?.lastEvent }
        return MonitorRecord(identifier: identifier, condition: spec.condition, deviceId: spec.deviceId, assuming: spec.assuming, lastEvent: lastEvent)
    }

    /// Restores a record from storage (its last event) without announcing it. A satisfied beacon
    /// record's exit timeout runs from `lastSeen`, its last matching sighting as stored (never
    /// before its event), so a device gone while the service was down exits when it was due, at
    /// the first tick; with no stored sighting (a database from before they were kept) it runs
    /// from `now`. An `unknown` record gets back the state it was last decided in (`decided`, as
    /// stored), so its circle's hysteresis and dwell hold across the restart. `number` is the
    /// device's storage number as the row has it (0: none), kept as the device's unless it already
    /// has another (`storageNumber` then says which). Returns false when the record's condition is
    /// gone (the catalog changed), so storage drops the record too.
    @discardableResult
    public func restore(deviceId: String, monitor: String, identifier: String, lastEvent: RegionEvent, lastSeen: Timestamp? = nil,
                        decided: ConditionState? = nil, number: UInt32 = 0, now: Timestamp) -> Bool {
        guard let e = entry(monitor: monitor, identifier: identifier), let entry = conditions[e] else { return false }
        if let device = entry.spec.deviceId, device != deviceId { return true }
        let slot = slotFor(deviceId, at: now.milliseconds)
        _ = devices.adopt(number, slot: slot)
        let i = ensureRecord(slot, e, at: now.milliseconds)
        var record = devices[slot].records[i]
        record.state = lastEvent.state
        if lastEvent.state != .unknown {
            record.decided = lastEvent.state
        } else if let decided {
            record.decided = decided
        }
        record.flags = FlagSet(lastEvent.flags)
        record.refinement = lastEvent.refinement.flatMap { uuids.compact($0) }
        record.eventDate = lastEvent.date.milliseconds
        if case .beacon = entry.kind, record.state == .satisfied {
            record.lastSeen = lastSeen.map { max($0.milliseconds, record.eventDate) } ?? now.milliseconds
        }
        devices[slot].records[i] = record
        schedule(slot)
        return true
    }

    /// The record for a condition, made on first use with the condition's assumed state.
    func ensureRecord(_ slot: Int, _ e: Int, at: Int64) -> Int {
        if let i = devices[slot].recordIndex(e) { return i }
        var record = CompactRecord(entry: e, state: conditions[e]?.spec.assuming ?? .unknown)
        if record.state == .satisfied, case .beacon? = conditions[e]?.kind { record.lastSeen = at }
        devices[slot].records.append(record)
        return devices[slot].records.count - 1
    }

    /// Moves a record to a state and flags, announcing it when either changed. A satisfied or
    /// unsatisfied state is also the record's `decided` state; `unknown` leaves that as it was.
    func set(_ slot: Int, _ i: Int, state: ConditionState, flags: FlagSet, refinement: CompactBeacon?, at: Int64, into events: inout [RegionEvent]) {
        var record = devices[slot].records[i]
        guard record.state != state || record.flags != flags else { return }
        record.state = state
        if state != .unknown { record.decided = state }
        record.flags = flags
        record.refinement = state == .satisfied ? refinement : nil
        record.eventDate = at
        devices[slot].records[i] = record
        events.append(event(of: record, deviceId: devices[slot].id))
    }

    private func event(of record: CompactRecord, deviceId: String) -> RegionEvent {
        let spec = conditions[Int(record.entry)]!.spec
        return RegionEvent(monitor: spec.monitor, identifier: spec.identifier, deviceId: deviceId, state: record.state,
                           refinement: record.refinement.map { uuids.identity($0) }, flags: record.flags.flags, date: Timestamp(milliseconds: record.eventDate))
    }

    private func publicRecord(_ record: CompactRecord, deviceId: String) -> ConditionRecord {
        ConditionRecord(state: record.state, refinement: record.refinement.map { uuids.identity($0) },
                        lastSeen: record.lastSeen == CompactRecord.none ? nil : Timestamp(milliseconds: record.lastSeen),
                        lastEvent: record.eventDate == CompactRecord.none ? nil : event(of: record, deviceId: deviceId))
    }
}
