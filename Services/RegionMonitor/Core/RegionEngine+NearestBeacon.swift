import Messages

/// The nearest beacon per device: decided by near and immediate sightings only, so a far beacon
/// never switches the café.
extension RegionEngine {
    /// A device's nearest beacon as last announced; nil when none is.
    public func nearestBeacon(deviceId: String) -> NearestBeacon? {
        guard let slot = slots[deviceId], let nearest = devices[slot].nearest else { return nil }
        return NearestBeacon(deviceId: deviceId, beacon: identity(nearest.beacon), proximity: nearest.proximity, date: Timestamp(milliseconds: nearest.date))
    }

    /// The nearest beacon decides only when near or immediate. With none fresh, the current answer
    /// stands while any beacon of its café is still heard (far must not switch the café) and is
    /// cleared once its café has gone silent.
    func updateNearest(slot: Int, now: Int64) -> NearestBeacon? {
        var best: Heard?
        for heard in devices[slot].heard where heard.proximity.decidesPlace && now - heard.at <= freshnessMilliseconds {
            if let current = best {
                if heard.accuracy < current.accuracy
                    || (heard.accuracy == current.accuracy && identity(heard.beacon).description < identity(current.beacon).description) {
                    best = heard
                }
            } else {
                best = heard
            }
        }
        let current = devices[slot].nearest
        if best == nil, let current, devices[slot].heard.contains(where: { $0.beacon.uuid == current.beacon.uuid && $0.beacon.major == current.beacon.major }) {
            return nil
        }
        if best?.beacon == current?.beacon { return nil }
        devices[slot].nearest = best.map { Nearest(beacon: $0.beacon, proximity: $0.proximity, date: now) }
        return NearestBeacon(deviceId: devices[slot].id, beacon: best.map { identity($0.beacon) }, proximity: best?.proximity, date: Timestamp(milliseconds: now))
    }

    /// Restores the last announced nearest beacon of a device, as if its beacon were heard at `now`
    /// (but never nearer than any real sighting): a device that stays silent after a restart has
    /// it cleared one exit timeout later, like a satisfied record. A beacon whose UUID no
    /// condition names any more (the catalog changed) cannot stay the nearest: the effects
    /// announce it cleared.
    @discardableResult
    public func restoreNearest(_ value: NearestBeacon, now: Timestamp) -> RegionEffects {
        var effects = RegionEffects()
        guard let beacon = value.beacon else { return effects }
        guard let compact = knownBeacon(beacon) else {
            effects.nearest.append(NearestBeacon(deviceId: value.deviceId, beacon: nil, proximity: nil, date: now))
            return effects
        }
        let slot = slotFor(value.deviceId, at: now.milliseconds)
        devices[slot].nearest = Nearest(beacon: compact, proximity: value.proximity ?? .near, date: value.date.milliseconds)
        devices[slot].hear(compact, proximity: value.proximity ?? .near, accuracy: .infinity, at: now.milliseconds)
        schedule(slot)
        return effects
    }
}
