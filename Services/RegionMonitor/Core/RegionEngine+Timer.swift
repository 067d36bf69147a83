import Messages

/// The timer (`RegionTimer`): beacon exits, dwell times and nearest answers ending fire when due, found through
/// the deadline heap so a tick touches only the devices that are due.
extension RegionEngine {
    /// Fires what is due: a satisfied beacon record with no matching sighting for its exit timeout
    /// becomes unsatisfied (refinement cleared, dated when the timeout ran out); a circle whose dwell time has passed inside
    /// becomes satisfied; a nearest answer ends one nearest freshness after its beacon's last
    /// near/immediate sighting (the next fresh near beacon, or none, follows). Called by a timer, not by the
    /// next message. Output order is stable: by device id, then conditions in the order added.
    ///
    /// At most `limit` devices with something to announce are handled per call, and at most
    /// `checks` devices looked at (the rest stay due, for the next call, see `isBehind`), so a
    /// mass exit is spread over short passes instead of one that holds every sighting behind it;
    /// each event is dated when it fell due, however late the pass. Most devices that come due
    /// have nothing to announce (a device still heard is checked at its old deadline and put
    /// back): counted against `limit` as well, they kept 10⁵ steadily sighted devices' checks in
    /// front of the answers really ending, which then came about 10 s late (the bench's stale wave).
    public func tick(now: Timestamp, limit: Int = .max, checks: Int = .max) -> RegionEffects {
        let at = now.milliseconds
        var changed: [(deviceId: String, events: [RegionEvent], nearest: NearestBeacon?)] = []
        var examined = 0
        while changed.count < limit, examined < checks, let slot = timer.nextDue(at: at, in: devices) {
            examined += 1
            // Records sit in the order the device first met them; events go in the order added.
            var keyed: [(order: Int, event: RegionEvent)] = []
            for i in devices[slot].records.indices {
                let record = devices[slot].records[i]
                guard let entry = conditions[Int(record.entry)] else { continue }
                var produced: [RegionEvent] = []
                switch entry.kind {
                case .beacon(_, let exit):
                    if record.state == .satisfied, record.lastSeen != CompactRecord.none, at - record.lastSeen >= exit {
                        // Dated when it was due: a tick runs a little later, and after a restart
                        // the first tick fires exits that fell due while the service was down.
                        set(slot, i, state: .unsatisfied, flags: .none, refinement: nil, at: record.lastSeen + exit, into: &produced)
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
                devices[slot].forgetHeard(now: at, retention: conditions.heardMilliseconds)
                nearest = nearestTracker.update(&devices[slot], now: at, uuids: uuids)
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

    /// Whether a device is due at `now`: a tick cut short by its limit left work.
    public func isBehind(now: Timestamp) -> Bool {
        timer.isBehind(now: now.milliseconds)
    }

    /// Puts a device on the timer at its earliest deadline: a satisfied beacon record's exit, a
    /// circle's dwell, the nearest answer ending, a heard beacon going stale for it or expiring. None: off
    /// the timer. From inside a tick the deadline is strictly after that tick, so a tick ends.
    func schedule(_ slot: Int, after now: Int64? = nil) {
        timer.schedule(&devices[slot], slot: slot, conditions: conditions, after: now)
    }
}
