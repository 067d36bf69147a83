import Messages

/// Fixes: kept per device (bounded in number and age) and evaluated against circular
/// conditions. Coordinates stay in the engine; what leaves is a state (and, in
/// `+LocationAnswers`, a yes/no or an ordering of place ids).
extension RegionEngine {
    /// A location fix: moves every circle that applies to the device, and is kept (bounded in
    /// number and age) for confirmations. A fix older than the device's latest is kept but
    /// moves nothing. Refused (not kept, nothing changes) while the device's authorization is
    /// withdrawn. It is precise only when it says so and the device's last status grants precise
    /// location: under an approximate-only grant a fix claiming `precise` is approximate. An
    /// approximate fix counts with an uncertainty of at least `approximateUncertainty` (1 km).
    public func fix(_ f: LocationFix) -> RegionEffects {
        var effects = RegionEffects()
        if authorizations.refuses(f.deviceId) {
            effects.refused = true
            return effects
        }
        let at = f.observedAt.milliseconds
        let slot = slotFor(f.deviceId, at: at)
        let fix = compact(f)
        let latest = devices[slot].fixes.last?.at ?? Int64.min
        devices[slot].keep(fix, limit: settings.fixesPerDevice)
        guard at >= latest else { return effects }

        var circles = circleEntriesFor(f.deviceId)
        circles.sort { conditions[$0]!.order < conditions[$1]!.order }
        let holds = !fix.precise && holdsDecisions(slot, at: at, deviceId: f.deviceId)
        for e in circles {
            guard case .circle(let circle)? = conditions[e]?.kind else { continue }
            evaluate(slot, e, circle, fix, holdsDecision: holds, into: &effects.events)
        }
        schedule(slot)
        return effects
    }

    /// A fix as the engine keeps it: precise only when the fix and the device's grant both say so;
    /// an approximate one counts with at least `approximateUncertainty`, whatever it claims.
    private func compact(_ f: LocationFix) -> CompactFix {
        let precise = f.precise && !authorizations.isApproximate(f.deviceId)
        let accuracy = precise ? f.horizontalAccuracy : max(f.horizontalAccuracy, settings.approximateUncertainty)
        return CompactFix(latitude: f.latitude, longitude: f.longitude, accuracy: accuracy, precise: precise, at: f.observedAt.milliseconds)
    }

    private func circleEntriesFor(_ deviceId: String) -> [Int] {
        var result = conditions.circleEntries
        for e in conditions.scoped(to: deviceId) ?? [] {
            if case .circle? = conditions[e]?.kind { result.append(e) }
        }
        return result
    }

    /// Whether an approximate fix that cannot decide a circle keeps the circle's decided state:
    /// only under a precise grant, while the device's latest precise fix is fresh (`fixFreshness`)
    /// and still among its kept fixes (`fixesPerDevice`): no more per-device state for the rule.
    private func holdsDecisions(_ slot: Int, at: Int64, deviceId: String) -> Bool {
        guard !authorizations.isApproximate(deviceId), let precise = devices[slot].fixes.last(where: \.precise) else { return false }
        return at - precise.at <= Self.milliseconds(settings.fixFreshness)
    }

    /// One circle against one fix, accuracy-aware. The hysteresis and dwell apply from the state
    /// the circle was last decided in (`CompactRecord.decided`), kept through `unknown`:
    /// - wholly outside (beyond the radius, plus the hysteresis when last decided satisfied): unsatisfied;
    /// - an approximate fix whose uncertainty is wider than the circle cannot decide it (it never
    ///   satisfies a condition smaller than its uncertainty): the decided state is kept while
    ///   `holdsDecision` (a fresh precise fix under a precise grant); otherwise unknown, `accuracyLimited`;
    /// - wholly inside (an approximate fix narrower than the circle counts like a precise one):
    ///   satisfied, at once when last decided satisfied, else once the dwell time has passed inside;
    /// - straddling the boundary: the state stays as it was.
    private func evaluate(_ slot: Int, _ e: Int, _ circle: Circle, _ fix: CompactFix, holdsDecision: Bool, into events: inout [RegionEvent]) {
        let i = ensureRecord(slot, e, at: fix.at)
        let record = devices[slot].records[i]
        let distance = Geodesy.distance(fix.latitude, fix.longitude, circle.latitude, circle.longitude)
        let margin = record.decided == .satisfied ? circle.hysteresis : 0
        if distance - fix.accuracy > circle.radius + margin {
            devices[slot].records[i].pendingSince = CompactRecord.none
            set(slot, i, state: .unsatisfied, flags: .none, refinement: nil, at: fix.at, into: &events)
        } else if !fix.precise && fix.accuracy > circle.radius {
            devices[slot].records[i].pendingSince = CompactRecord.none
            if holdsDecision && record.decided != .unknown { return }
            set(slot, i, state: .unknown, flags: .accuracyLimited, refinement: nil, at: fix.at, into: &events)
        } else if distance + fix.accuracy <= circle.radius {
            if record.decided == .satisfied || circle.dwellMilliseconds == 0 {
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
        devices[slot].keep(compact(f), limit: settings.fixesPerDevice)
    }

    /// How many fixes the engine holds for a device (tests and health).
    public func fixCount(deviceId: String) -> Int {
        devices.slot(deviceId).map { devices[$0].fixes.count } ?? 0
    }
}
