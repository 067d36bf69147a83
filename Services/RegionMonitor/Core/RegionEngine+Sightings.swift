import Messages

/// Sightings, the hot path: a heard beacon satisfies every beacon condition it matches, refined
/// to the nearest matching beacon, and may change the device's nearest beacon.
extension RegionEngine {
    /// A sighting: satisfies every matching condition not yet satisfied, refined to the nearest
    /// matching beacon; may change the nearest beacon. Refused (nothing changes) while the
    /// device's authorization is withdrawn; `unwatched` (nothing but the device's slot is kept)
    /// when no condition names the beacon's UUID.
    public func sighting(_ s: Sighting) -> RegionEffects {
        var effects = RegionEffects()
        if authorizations.refuses(s.deviceId) {
            effects.refused = true
            return effects
        }
        let at = s.observedAt.milliseconds
        // The device reports to the monitors whatever it heard (a new one gets its assumed records).
        let slot = slotFor(s.deviceId, at: at)
        guard let beacon = uuids.compact(s.beacon) else {
            // No condition names its UUID: it matches nothing and is not kept, so a phone inventing
            // UUIDs costs nothing beyond its own slot.
            effects.unwatched = true
            return effects
        }
        devices[slot].sighted(Heard(s, beacon: beacon))
        for (e, matcher, exit) in conditions.beaconMatchers where matcher.matches(beacon) {
            satisfy(slot, e, matcher, exit: exit, at: at, into: &effects.events)
        }
        if let mine = conditions.scoped(to: s.deviceId) {
            for e in mine {
                if case .beacon(let matcher, let exit)? = conditions[e]?.kind, matcher.matches(beacon) {
                    satisfy(slot, e, matcher, exit: exit, at: at, into: &effects.events)
                }
            }
        }
        if let changed = nearestTracker.update(&devices[slot], now: at, uuids: uuids) { effects.nearest.append(changed) }
        // New sightings mostly move a device's deadlines later: one scheduled check suffices, and
        // when it comes due early the device is simply checked and scheduled again. But a device
        // quiet past the nearest freshness was put off until its heard beacons expire (up to the
        // longest exit timeout): heard again, its new answer or exit is due within the soonest
        // deadline a sighting makes, so it goes back on the timer at that. (Found by the bench's
        // stale wave: 50,000 answers named a café for 600 s instead of 10.)
        if devices[slot].scheduled.map({ $0 > at + conditions.soonestDeadlineMilliseconds }) ?? true { schedule(slot) }
        return effects
    }

    private func satisfy(_ slot: Int, _ e: Int, _ matcher: Matcher, exit: Int64, at: Int64, into events: inout [RegionEvent]) {
        let i = ensureRecord(slot, e, at: at)
        let lastSeen = devices[slot].records[i].lastSeen
        if lastSeen != CompactRecord.none, at - lastSeen >= exit, devices[slot].records[i].state == .satisfied {
            // The exit was due before this sighting (the timer had not run yet, or the service was
            // down): the device left and came back, so it exits when it was due, then arrives again.
            set(slot, i, state: .unsatisfied, flags: .none, refinement: nil, at: lastSeen + exit, into: &events)
        }
        let latest = lastSeen == CompactRecord.none ? at : max(lastSeen, at)
        devices[slot].records[i].lastSeen = latest
        let record = devices[slot].records[i]
        if record.state != .satisfied || record.flags != .none {
            // The satisfied event is stored with the record, its date (`at`) as the last matching
            // sighting: nothing is left to save unless an earlier-stamped sighting came late.
            set(slot, i, state: .satisfied, flags: .none, refinement: nearestMatching(slot, matcher), at: at, into: &events)
            if latest > at { devices[slot].markUnsaved(from: latest) }
        } else if latest > lastSeen {
            // Only a sighting that moves the last one later has anything to save: a first-seen
            // phone's other beacons in the same report (same time) saved it again, one more
            // random record write per device (7% of region-monitor's first pass).
            devices[slot].markUnsaved(from: at)
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
}
