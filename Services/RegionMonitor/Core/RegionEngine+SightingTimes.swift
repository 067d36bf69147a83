import Messages

/// A satisfied beacon record's last matching sighting, as storage keeps it: after a restart the
/// record's exit timeout runs from it, so exits fire when they are due.
public struct SightingTime: Sendable, Equatable {
    public var deviceId: String
    public var monitor: String
    public var identifier: String
    public var lastSeen: Timestamp

    public init(deviceId: String, monitor: String, identifier: String, lastSeen: Timestamp) {
        self.deviceId = deviceId
        self.monitor = monitor
        self.identifier = identifier
        self.lastSeen = lastSeen
    }
}

/// Last matching sightings handed to storage in batches, never one write per sighting (a sighting
/// only marks its device, `DeviceState.sighted`): a device
/// still being seen at most once per `sightingSaveInterval` (or a quarter of its shortest exit
/// timeout), one that went quiet at the next save after that. What a crash loses is therefore the last few seconds of a device that was still
/// around, and it is seen again after the restart anyway.
extension RegionEngine {
    /// The last matching sightings to store now (called by the service's save timer): of each
    /// device quiet since the previous call, and of each device whose unsaved sightings span the
    /// save interval. They count as saved once returned; `keepUnsaved` takes back a batch whose
    /// write failed.
    ///
    /// At most `limit` devices are handed out per call, resuming where the last call stopped: at
    /// 100,000 devices in range a whole pass is 20,000 rows, and written at once it held the
    /// reactor (and every sighting behind it) for a fifth of a second.
    public func sightingTimesToSave(limit: Int = .max) -> [SightingTime] {
        var times: [SightingTime] = []
        var handedOut = 0
        guard !devices.isEmpty else { return times }
        // A pass over the devices from where the last one stopped (about a millisecond per 100,000)
        // instead of a list of changed ones kept on the hot path.
        let start = sightingSaveCursor < devices.count ? sightingSaveCursor : 0
        for offset in 0..<devices.count {
            let slot = (start + offset) % devices.count
            guard devices[slot].unsavedFrom != DeviceState.allSaved else { continue }
            if handedOut >= limit {
                sightingSaveCursor = slot
                return times
            }
            let from = devices[slot].unsavedFrom
            if devices[slot].seenSinceSave {
                // Still seen: saved once its unsaved sightings span the interval, or a quarter of
                // its shortest exit timeout if less, so what a crash loses stays well inside it.
                var latest = from, interval = sightingSaveMilliseconds
                for record in devices[slot].records where record.lastSeen != CompactRecord.none {
                    latest = max(latest, record.lastSeen)
                    if case .beacon(_, let exit)? = entries[Int(record.entry)]?.kind { interval = min(interval, exit / 4) }
                }
                if latest - from < interval {
                    devices[slot].seenSinceSave = false
                    continue
                }
            }
            for record in devices[slot].records where record.state == .satisfied && record.lastSeen != CompactRecord.none && record.lastSeen >= from {
                guard let entry = entries[Int(record.entry)], case .beacon = entry.kind else { continue }
                times.append(SightingTime(deviceId: devices[slot].id, monitor: entry.spec.monitor, identifier: entry.spec.identifier,
                                          lastSeen: Timestamp(milliseconds: record.lastSeen)))
            }
            devices[slot].unsavedFrom = DeviceState.allSaved
            devices[slot].seenSinceSave = false
            handedOut += 1
        }
        sightingSaveCursor = 0
        return times
    }

    /// Sightings handed out by `sightingTimesToSave` whose write failed: handed out again next time.
    public func keepUnsaved(_ times: [SightingTime]) {
        for time in times {
            guard let slot = slots[time.deviceId] else { continue }
            devices[slot].unsavedFrom = min(devices[slot].unsavedFrom, time.lastSeen.milliseconds)
        }
    }
}
