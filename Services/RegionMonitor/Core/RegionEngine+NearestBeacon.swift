import Messages

/// The nearest beacon per device (`NearestBeaconTracker`): decided by near and immediate
/// sightings only, so a far beacon never switches the café.
extension RegionEngine {
    /// A device's nearest beacon as last announced; nil when none is.
    public func nearestBeacon(deviceId: String) -> NearestBeacon? {
        guard let slot = devices.slot(deviceId), let nearest = devices[slot].nearest else { return nil }
        return NearestBeacon(deviceId: deviceId, beacon: uuids.identity(nearest.beacon), proximity: nearest.proximity, date: Timestamp(milliseconds: nearest.date))
    }

    /// While no café is named for a device: the leading beacon of each café it may be at,
    /// likeliest first, as of `now` (empty when a café is named or no beacon is near).
    public func nearestCandidates(deviceId: String, now: Timestamp) -> [BeaconIdentity] {
        guard let slot = devices.slot(deviceId) else { return [] }
        return nearestTracker.candidates(devices[slot], now: now.milliseconds).map { uuids.identity($0.beacon) }
    }

    /// Restores the last announced nearest beacon of a device, as if it were heard near at `now`
    /// (its last near sighting is not stored): a device that stays silent, or is heard only far,
    /// after a restart has it cleared one nearest freshness later. A beacon whose UUID no
    /// condition names any more (the catalog changed) cannot stay the nearest: the effects
    /// announce it cleared. `number` is the device's storage number as the row has it, kept as
    /// the device's unless it already has another (as for records).
    @discardableResult
    public func restoreNearest(_ value: NearestBeacon, number: UInt32 = 0, now: Timestamp) -> RegionEffects {
        var effects = RegionEffects()
        guard let beacon = value.beacon else { return effects }
        // Held even when the answer is cleared below: the clearing is stored under its number.
        let slot = slotFor(value.deviceId, at: now.milliseconds)
        _ = devices.adopt(number, slot: slot)
        guard let compact = uuids.compact(beacon) else {
            effects.nearest.append(NearestBeacon(deviceId: value.deviceId, beacon: nil, proximity: nil, date: now))
            return effects
        }
        devices[slot].nearest = Nearest(beacon: compact, proximity: value.proximity ?? .near, date: value.date.milliseconds, nearAt: now.milliseconds)
        schedule(slot)
        return effects
    }
}
