import Messages

/// The nearest beacon per device: decided by near and immediate sightings fresher than the
/// nearest freshness only, so a far beacon never switches the café, and the answer ends one
/// freshness after its beacon's last near or immediate sighting.
struct NearestBeaconTracker {
    private let freshnessMilliseconds: Int64

    /// Near/immediate sightings count for `freshnessMilliseconds`.
    init(freshnessMilliseconds: Int64) {
        self.freshnessMilliseconds = freshnessMilliseconds
    }

    /// Decides a device's nearest beacon at `now`; returns the announcement when it changed. The
    /// nearest of the beacons whose latest sighting is near or immediate and younger than the
    /// freshness wins. With none, the current answer stands until one freshness after its own
    /// beacon's last near/immediate sighting (heard far meanwhile, it must not end sooner, nor
    /// far switch the café), then is cleared, dated when it ended.
    func update(_ device: inout DeviceState, now: Int64, uuids: BeaconUUIDTable) -> NearestBeacon? {
        var best: Heard?
        for heard in device.heard where heard.proximity.decidesPlace && now - heard.at < freshnessMilliseconds {
            if var nearest = device.nearest, heard.beacon == nearest.beacon, heard.at > nearest.nearAt {
                nearest.nearAt = heard.at
                device.nearest = nearest
            }
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
        if best == nil, let current {
            let ends = holdEnds(current)
            if now < ends { return nil }
            // Dated when it ended, as an exit is: a timer pass or a sighting may come later.
            device.nearest = nil
            return NearestBeacon(deviceId: device.id, beacon: nil, proximity: nil, date: Timestamp(milliseconds: ends))
        }
        if best?.beacon == current?.beacon { return nil }
        device.nearest = best.map { Nearest(beacon: $0.beacon, proximity: $0.proximity, date: now, nearAt: $0.at) }
        return NearestBeacon(deviceId: device.id, beacon: best.map { uuids.identity($0.beacon) }, proximity: best?.proximity, date: Timestamp(milliseconds: now))
    }

    /// When a heard beacon stops counting for the answer (so the answer is decided again); nil
    /// for a far or unknown one, which never counts.
    func staleAt(_ heard: Heard) -> Int64? {
        heard.proximity.decidesPlace ? heard.at + freshnessMilliseconds : nil
    }

    /// When an answer ends unless a near/immediate sighting comes: one freshness after its
    /// beacon's last one.
    func holdEnds(_ nearest: Nearest) -> Int64 {
        nearest.nearAt + freshnessMilliseconds
    }
}
