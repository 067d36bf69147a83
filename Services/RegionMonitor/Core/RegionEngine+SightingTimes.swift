import Messages

/// Last matching sightings handed to storage in batches (`SightingTimeLedger`), so that after a
/// restart a satisfied beacon record's exit timeout runs from its last matching sighting.
extension RegionEngine {
    /// The last matching sightings to store now (called by the service's save timer): of each
    /// device quiet since the previous call, and of each device whose unsaved sightings span the
    /// save interval. They count as saved once returned; `keepUnsaved` takes back a batch whose
    /// write failed.
    ///
    /// At most `limit` devices are handed out per call, resuming where the last call stopped: at
    /// 100,000 devices in range a whole pass is 20,000 rows, and written at once it held the
    /// reactor (and every sighting behind it) for a fifth of a second. At most `visits` devices
    /// are looked at per call: a device is then looked at once per `slots ÷ visits` calls.
    public func sightingTimesToSave(limit: Int = .max, visits: Int = .max) -> [SightingTime] {
        sightingTimes.toSave(devices: devices, conditions: conditions, limit: limit, visits: visits)
    }

    /// Sightings handed out by `sightingTimesToSave` whose write failed: handed out again next time.
    public func keepUnsaved(_ times: [SightingTime]) {
        for time in times {
            guard let slot = devices.slot(time.deviceId) else { continue }
            devices[slot].markUnsaved(from: time.lastSeen.milliseconds)
        }
    }
}
