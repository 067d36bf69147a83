import Messages

/// Fixes: kept per device (bounded in number and age) and evaluated against circular
/// conditions. Coordinates stay in the engine; what leaves is a state (and, in
/// `+LocationAnswers`, a yes/no or an ordering of place ids).
extension RegionEngine {
    /// A location fix: moves every circle that applies to the device, and is kept (bounded in
    /// number and age) for confirmations. A fix older than the device's latest is kept but
    /// moves nothing. Refused (not kept, nothing changes) while the device's authorization is
    /// withdrawn.
    public func fix(_ f: LocationFix) -> RegionEffects {
        var effects = RegionEffects()
        if authorizations.refuses(f.deviceId) {
            effects.refused = true
            return effects
        }
        let at = f.observedAt.milliseconds
        let slot = slotFor(f.deviceId, at: at)
        let fix = CompactFix(latitude: f.latitude, longitude: f.longitude, accuracy: f.horizontalAccuracy, precise: f.precise, at: at)
        let latest = devices[slot].fixes.last?.at ?? Int64.min
        devices[slot].keep(fix, limit: settings.fixesPerDevice)
        guard at >= latest else { return effects }

        var circles = circleEntriesFor(f.deviceId)
        circles.sort { conditions[$0]!.order < conditions[$1]!.order }
        for e in circles {
            guard case .circle(let circle)? = conditions[e]?.kind else { continue }
            evaluate(slot, e, circle, fix, into: &effects.events)
        }
        schedule(slot)
        return effects
    }

    private func circleEntriesFor(_ deviceId: String) -> [Int] {
        var result = conditions.circleEntries
        for e in conditions.scoped(to: deviceId) ?? [] {
            if case .circle? = conditions[e]?.kind { result.append(e) }
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

    /// Fixes observed before this are older than the retention (storage drops them too).
    public func fixCutoff(now: Timestamp) -> Int64 {
        now.milliseconds - Self.milliseconds(settings.fixRetention)
    }

    /// Drops fixes older than the retention. Returns how many were dropped.
    @discardableResult
    public func expireFixes(now: Timestamp) -> Int {
        let cutoff = fixCutoff(now: now)
        var dropped = 0
        for slot in devices.occupiedSlots where !devices[slot].fixes.isEmpty {
            dropped += devices[slot].expireFixes(before: cutoff)
        }
        return dropped
    }

    /// Restores a stored fix (for confirmations); it moves no condition.
    public func restoreFix(_ f: LocationFix, now: Timestamp) {
        let slot = slotFor(f.deviceId, at: now.milliseconds)
        devices[slot].keep(CompactFix(latitude: f.latitude, longitude: f.longitude, accuracy: f.horizontalAccuracy, precise: f.precise,
                                      at: f.observedAt.milliseconds),
                           limit: settings.fixesPerDevice)
    }

    /// How many fixes the engine holds for a device (tests and health).
    public func fixCount(deviceId: String) -> Int {
        devices.slot(deviceId).map { devices[$0].fixes.count } ?? 0
    }
}
