import Messages

/// The nearest beacon per device: decided by near and immediate sightings fresher than the
/// nearest freshness only, so a far beacon never switches the café.
struct NearestBeaconTracker {
    private let freshnessMilliseconds: Int64

    /// Near/immediate sightings count for `freshnessMilliseconds`.
    init(freshnessMilliseconds: Int64) {
        self.freshnessMilliseconds = freshnessMilliseconds
    }

    /// Decides a device's nearest beacon at `now`; returns the announcement when it changed. With
    /// none fresh, the current answer stands while any beacon of its café is still heard (far
    /// must not switch the café) and is cleared once its café has gone silent.
    func update(_ device: inout DeviceState, now: Int64, uuids: BeaconUUIDTable) -> NearestBeacon? {
        var best: Heard?
        for heard in device.heard where heard.proximity.decidesPlace && now - heard.at <= freshnessMilliseconds {
            if let current = best {
                if heard.accuracy < current.accuracy
                    || (heard.accuracy == current.accuracy && uuids.identity(heard.beacon).description < uuids.identity(current.beacon).description) {
                    best = heard
                }
            } else {
                best = heard
            }
        }
        let current = device.nearest
        if best == nil, let current, device.heard.contains(where: { $0.beacon.uuid == current.beacon.uuid && $0.beacon.major == current.beacon.major }) {
            return nil
        }
        if best?.beacon == current?.beacon { return nil }
        device.nearest = best.map { Nearest(beacon: $0.beacon, proximity: $0.proximity, date: now) }
        return NearestBeacon(deviceId: device.id, beacon: best.map { uuids.identity($0.beacon) }, proximity: best?.proximity, date: Timestamp(milliseconds: now))
    }

    /// When a heard beacon stops counting for the answer (so the answer is decided again); nil
    /// for a far or unknown one, which never counts.
    func staleAt(_ heard: Heard) -> Int64? {
        heard.proximity.decidesPlace ? heard.at + freshnessMilliseconds + 1 : nil
    }
}
