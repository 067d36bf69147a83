/// When each device next needs the timer (a beacon exit, a circle's dwell, the nearest answer
/// ending, a heard beacon going stale for the nearest answer or expiring), so a tick touches only the devices that are due
/// instead of walking all of them. A device is on the timer at most once that counts: its
/// `scheduled` deadline; heap entries for an earlier schedule or a freed slot are skipped.
final class RegionTimer {
    private var due = DeadlineHeap()
    private let nearest: NearestBeaconTracker

    /// `nearest` says when a heard beacon goes stale for the nearest answer.
    init(nearest: NearestBeaconTracker) {
        self.nearest = nearest
    }

    /// Puts a device on the timer at its earliest deadline; none: off the timer. From inside a
    /// tick (`now` given) the deadline is strictly after that tick, so a tick ends.
    func schedule(_ device: inout DeviceState, slot: Int, conditions: ConditionTable, after now: Int64? = nil) {
        var earliest = Int64.max
        // By index: iterating would copy the list (see `NearestBeaconTracker.update`).
        for i in device.records.indices {
            let record = device.records[i]
            guard let entry = conditions[Int(record.entry)] else { continue }
            switch entry.kind {
            case .beacon(_, let exit):
                if record.state == .satisfied, record.lastSeen != CompactRecord.none { earliest = min(earliest, record.lastSeen + exit) }
            case .circle(let circle):
                if record.pendingSince != CompactRecord.none { earliest = min(earliest, record.pendingSince + circle.dwellMilliseconds) }
            }
        }
        // The answer's end: one freshness after its beacon's last near/immediate sighting.
        if let answer = device.nearest {
            let ends = nearest.holdEnds(answer)
            if now.map({ ends > $0 }) ?? true { earliest = min(earliest, ends) }
        }
        let retention = conditions.heardMilliseconds
        for i in device.heard.indices {
            let heard = device.heard[i]
            // Going stale for the nearest answer: a deadline a tick already passed (and updated the
            // answer at) is not one to come back for, or the device would be due again every tick.
            if let stale = nearest.staleAt(heard), now.map({ stale > $0 }) ?? true { earliest = min(earliest, stale) }
            earliest = min(earliest, heard.at + retention)
        }
        guard earliest != Int64.max else {
            device.scheduled = nil
            return
        }
        if let now { earliest = max(earliest, now + 1) }
        if let scheduled = device.scheduled, scheduled <= earliest, now == nil {
            // Already due no later than this: that check reschedules.
            return
        }
        device.scheduled = earliest
        due.push(DeadlineHeap.Entry(due: earliest, slot: UInt32(slot), generation: device.generation))
    }

    /// The slot of the next device due at `now`, taken off the timer; nil when none is.
    func nextDue(at now: Int64, in devices: DeviceTable) -> Int? {
        while let next = due.peek(), next.due <= now {
            due.pop()
            let slot = Int(next.slot)
            // A purged (and maybe reused) slot, or an entry superseded by a later schedule.
            guard slot < devices.slotCount, devices[slot].scheduled == next.due, devices[slot].generation == next.generation else { continue }
            devices[slot].scheduled = nil
            return slot
        }
        return nil
    }

    /// Whether a device is due at `now`.
    func isBehind(now: Int64) -> Bool {
        guard let next = due.peek() else { return false }
        return next.due <= now
    }
}
