import Messages

/// Which devices' last matching sightings are due for storage: handed out in batches, never
/// one write per sighting (a sighting only marks its device, `DeviceState.sighted`). A device
/// still being seen is due at most once per save interval (or a quarter of its shortest exit
/// timeout), one that went quiet at the next save after that. What a crash loses is therefore the
/// last few seconds of a device that was still around, and it is seen again after the restart anyway.
final class SightingTimeLedger {
    private let intervalMilliseconds: Int64
    /// Where the next pass resumes.
    private var cursor = 0

    /// A device still seen is saved every `intervalMilliseconds` (`RegionSettings.sightingSaveInterval`).
    init(intervalMilliseconds: Int64) {
        self.intervalMilliseconds = intervalMilliseconds
    }

    /// The last matching sightings to store now, of at most `limit` devices, looking at no more
    /// than `visits` slots, resuming where the last call stopped; they count as saved once returned.
    func toSave(devices: DeviceTable, conditions: ConditionTable, limit: Int, visits: Int) -> [SightingTime] {
        var times: [SightingTime] = []
        var handedOut = 0
        let count = devices.slotCount
        guard count > 0 else { return times }
        // A walk over the devices from where the last one stopped instead of a list of changed
        // ones kept on the hot path; at most `visits` slots, so a call costs the same at 10³
        // devices as at 10⁶ (a whole pass there was 10 ms, every 10 ms).
        let start = cursor < count ? cursor : 0
        let steps = min(count, max(visits, 1))
        for offset in 0..<steps {
            let slot = (start + offset) % count
            guard devices[slot].unsavedFrom != DeviceState.allSaved else { continue }
            if handedOut >= limit {
                cursor = slot
                return times
            }
            let from = devices[slot].unsavedFrom
            if devices[slot].seenSinceSave {
                // Still seen: saved once its unsaved sightings span the interval, or a quarter of
                // its shortest exit timeout if less, so what a crash loses stays well inside it.
                var latest = from, interval = intervalMilliseconds
                for record in devices[slot].records where record.lastSeen != CompactRecord.none {
                    latest = max(latest, record.lastSeen)
                    if case .beacon(_, let exit)? = conditions[Int(record.entry)]?.kind { interval = min(interval, exit / 4) }
                }
                if latest - from < interval {
                    devices[slot].deferSave()
                    continue
                }
            }
            for record in devices[slot].records where record.state == .satisfied && record.lastSeen != CompactRecord.none && record.lastSeen >= from {
                guard let entry = conditions[Int(record.entry)], case .beacon = entry.kind else { continue }
                times.append(SightingTime(deviceId: devices[slot].id, monitor: entry.spec.monitor, identifier: entry.spec.identifier,
                                          lastSeen: Timestamp(milliseconds: record.lastSeen), number: devices[slot].number))
            }
            devices[slot].markSaved()
            handedOut += 1
        }
        cursor = (start + steps) % count
        return times
    }
}
