import Messages

/// Fixes: circular conditions, location confirmation for App Clips, cafés by distance.
/// Coordinates stay in here; what leaves is a state, yes/no, or an ordering of place ids.
extension RegionEngine {
    /// A location fix: moves every circle that applies to the device, and is kept (bounded in
    /// number and age) for confirmations. A fix older than the device's latest is kept but
    /// moves nothing.
    public func fix(_ f: LocationFix) -> RegionEffects {
        var effects = RegionEffects()
        let at = f.observedAt.milliseconds
        let slot = slotFor(f.deviceId, at: at)
        let fix = CompactFix(latitude: f.latitude, longitude: f.longitude, accuracy: f.horizontalAccuracy, precise: f.precise, at: at)
        let latest = devices[slot].fixes.last?.at ?? Int64.min
        keep(fix, slot: slot)
        guard at >= latest else { return effects }

        var circles = circleEntriesFor(f.deviceId)
        circles.sort { entries[$0]!.order < entries[$1]!.order }
        for e in circles {
            guard case .circle(let circle)? = entries[e]?.kind else { continue }
            evaluate(slot, e, circle, fix, into: &effects.events)
        }
        schedule(slot)
        return effects
    }

    private func circleEntriesFor(_ deviceId: String) -> [Int] {
        var result = circleEntries
        for e in scoped[deviceId] ?? [] {
            if case .circle? = entries[e]?.kind { result.append(e) }
        }
        return result
    }

    /// One circle against one fix, accuracy-aware:
    /// - wholly outside (beyond the radius, plus the hysteresis when leaving): unsatisfied;
    /// - an approximate fix whose uncertainty is wider than the circle: unknown, `accuracyLimited`
    ///   (it can never satisfy a condition smaller than its uncertainty);
    /// - wholly inside: satisfied, once the dwell time has passed inside;
    /// - straddling the boundary: the state stays as it was.
    private func evaluate(_ slot: Int, _ e: Int, _ circle: Circle, _ fix: CompactFix, into events: inout [RegionEvent]) {
        let i = ensureRecord(slot, e, at: fix.at)
        let record = devices[slot].records[i]
        let distance = Geodesy.distance(fix.latitude, fix.longitude, circle.latitude, circle.longitude)
        let margin = record.state == .satisfied ? circle.hysteresis : 0
        if distance - fix.accuracy > circle.radius + margin {
            devices[slot].records[i].pendingSince = CompactRecord.none
            set(slot, i, state: .unsatisfied, flags: .none, refinement: nil, at: fix.at, into: &events)
        } else if !fix.precise && fix.accuracy > circle.radius {
            devices[slot].records[i].pendingSince = CompactRecord.none
            set(slot, i, state: .unknown, flags: .accuracyLimited, refinement: nil, at: fix.at, into: &events)
        } else if distance + fix.accuracy <= circle.radius {
            if record.state == .satisfied {
                set(slot, i, state: .satisfied, flags: .none, refinement: nil, at: fix.at, into: &events)
            } else if circle.dwellMilliseconds == 0 {
                set(slot, i, state: .satisfied, flags: .none, refinement: nil, at: fix.at, into: &events)
            } else if record.pendingSince == CompactRecord.none {
                devices[slot].records[i].pendingSince = fix.at
            } else if fix.at - record.pendingSince >= circle.dwellMilliseconds {
                devices[slot].records[i].pendingSince = CompactRecord.none
                set(slot, i, state: .satisfied, flags: .none, refinement: nil, at: fix.at, into: &events)
            }
        }
    }

    /// "Was the device inside this circle when it acquired the code?" From the precise fix
    /// nearest in time to `acquiredAt`, within the confirmation window; never a position.
    /// Authorization is the caller's to check first.
    public func confirm(deviceId: String, latitude: Double, longitude: Double, radius: Double,
                        acquiredAt: Timestamp) -> (result: LocationConfirmation.Result, reason: LocationConfirmation.Reason?) {
        let window = Self.milliseconds(settings.confirmWindow)
        let t = acquiredAt.milliseconds
        let candidates = slots[deviceId].map { devices[$0].fixes.filter { abs($0.at - t) <= window } } ?? []
        guard !candidates.isEmpty else { return (.disallowed, .noFreshFix) }
        guard let fix = candidates.filter(\.precise).min(by: { abs($0.at - t) < abs($1.at - t) }) else { return (.disallowed, .approximateOnly) }
        guard fix.accuracy <= radius else { return (.disallowed, .fixTooCoarse) }
        return Geodesy.distance(fix.latitude, fix.longitude, latitude, longitude) <= radius ? (.yes, nil) : (.no, nil)
    }

    /// Place ids ordered by distance from the device's latest fix, if it is fresh; empty otherwise.
    public func placesByDistance(deviceId: String, places: [(id: String, latitude: Double, longitude: Double)], now: Timestamp) -> [String] {
        guard let slot = slots[deviceId], let fix = devices[slot].fixes.last,
              now.milliseconds - fix.at <= Self.milliseconds(settings.fixFreshness)
        else { return [] }
        var ranked: [(id: String, distance: Double)] = []
        for place in places {
            ranked.append((place.id, Geodesy.distance(fix.latitude, fix.longitude, place.latitude, place.longitude)))
        }
        ranked.sort { a, b in a.distance < b.distance || (a.distance == b.distance && a.id < b.id) }
        return ranked.map(\.id)
    }

    /// Drops fixes older than the retention. Returns how many were dropped.
    @discardableResult
    public func expireFixes(now: Timestamp) -> Int {
        let cutoff = now.milliseconds - Self.milliseconds(settings.fixRetention)
        var dropped = 0
        for slot in slots.values where !devices[slot].fixes.isEmpty {
            let before = devices[slot].fixes.count
            devices[slot].fixes.removeAll { $0.at < cutoff }
            dropped += before - devices[slot].fixes.count
        }
        return dropped
    }

    /// Restores a stored fix (for confirmations); it moves no condition.
    public func restoreFix(_ f: LocationFix, now: Timestamp) {
        let slot = slotFor(f.deviceId, at: now.milliseconds)
        keep(CompactFix(latitude: f.latitude, longitude: f.longitude, accuracy: f.horizontalAccuracy, precise: f.precise, at: f.observedAt.milliseconds),
             slot: slot)
    }

    /// Files a fix in time order, keeping the newest `fixesPerDevice`.
    private func keep(_ fix: CompactFix, slot: Int) {
        let position = devices[slot].fixes.lastIndex { $0.at <= fix.at }.map { $0 + 1 } ?? 0
        devices[slot].fixes.insert(fix, at: position)
        if devices[slot].fixes.count > settings.fixesPerDevice { devices[slot].fixes.removeFirst(devices[slot].fixes.count - settings.fixesPerDevice) }
    }

    /// How many fixes the engine holds for a device (tests and health).
    public func fixCount(deviceId: String) -> Int {
        slots[deviceId].map { devices[$0].fixes.count } ?? 0
    }

    // MARK: Monitors

    /// Declares a monitor the service builds itself (the campus monitor): nobody may open it or
    /// change its conditions through the socket.
    public func declareBuiltIn(_ name: String) {
        monitors[name, default: Monitor(owner: nil, builtIn: true)].builtIn = true
    }

    /// Takes a monitor by name, creating it when new. One owner at a time; opening again as the
    /// same owner is harmless.
    @discardableResult
    public func open(monitor name: String, owner: String) throws(ServiceError) -> MonitorInfo {
        try ConditionRules.validateMonitorName(name)
        try ConditionRules.validateOwner(owner)
        if let monitor = monitors[name] {
            if monitor.builtIn { throw ServiceError(.monitorOwned, "monitor \(name) is built from the campus catalog and cannot be opened") }
            if let current = monitor.owner, current != owner { throw ServiceError(.monitorOwned, "monitor \(name) is held by \"\(current)\"") }
        } else {
            guard monitors.values.filter({ !$0.builtIn }).count < settings.monitorLimit else {
                throw ServiceError(.monitorLimitExceeded, "there are already \(settings.monitorLimit) monitors, the limit")
            }
            monitors[name] = Monitor(owner: nil, builtIn: false)
        }
        monitors[name]?.owner = owner
        return info(name)!
    }

    /// Releases a monitor; its conditions and records stay and keep being evaluated.
    @discardableResult
    public func close(monitor name: String, owner: String) throws(ServiceError) -> MonitorInfo {
        guard let monitor = monitors[name] else { throw Self.unknownMonitor(name) }
        if monitor.builtIn { throw ServiceError(.monitorOwned, "monitor \(name) is built from the campus catalog and cannot be closed") }
        guard monitor.owner == owner else {
            throw ServiceError(.notMonitorOwner, monitor.owner.map { "monitor \(name) is held by \"\($0)\", not \"\(owner)\"" } ?? "monitor \(name) is not open")
        }
        monitors[name]?.owner = nil
        return info(name)!
    }

    /// Restores a monitor from storage.
    public func restoreMonitor(_ name: String, owner: String?) {
        if monitors[name] == nil { monitors[name] = Monitor(owner: owner, builtIn: false) }
    }

    public func info(_ name: String) -> MonitorInfo? {
        monitors[name].map {
            MonitorInfo(monitor: name, owner: $0.owner, conditions: $0.entries.count, conditionLimit: $0.builtIn ? $0.entries.count : settings.conditionLimit,
                        builtIn: $0.builtIn)
        }
    }

    public var monitorInfos: [MonitorInfo] { monitors.keys.sorted().compactMap(info) }

    /// Conditions of a monitor, in the order added (for storage).
    public func specs(monitor: String) -> [ConditionSpec] {
        monitors[monitor]?.entries.compactMap { entries[$0]?.spec } ?? []
    }
}
