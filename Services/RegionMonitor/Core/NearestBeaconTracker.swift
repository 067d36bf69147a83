import Messages
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The nearest beacon per device, named only when the evidence says which café the device is at.
///
/// The evidence is each beacon's mean RSSI over beacon-ingest's evidence window (40 s), taken
/// relative to the beacon's measured power so beacons of different power compare as distances
/// (`Heard.level`). Standing at one of two counters a few metres apart, ten seconds of readings
/// favour the wrong café for about one phone in ten; the long mean, a margin and a count of
/// readings are what make a naming right (Services/RegionMonitor/README.md, "Truth under radio
/// noise"). So:
///
/// - The leader is the freshly heard beacon with the highest level. A café (a UUID and major) is
///   named through its leading beacon only when that beacon is near or immediate and either no
///   other café's beacon is heard and its mean is of `aloneReadings` readings, or it leads every
///   other café's beacon by `marginDecibels` (5) over `readings` (25) readings.
/// - Until then the answer has no beacon but candidates: the leading beacon of every café within
///   the margin of the leader or with a near beacon, likeliest first, and the café whose near
///   beacon the latest readings put nearest, so an app can ask which counter the phone is at.
/// - A named café stays named while it leads; when another café's beacon leads, it is named if
///   conclusive, else the answer falls back to candidates. A switch is never a guess.
/// - The latest readings can only take a naming away: when another café's near beacon is nearer
///   by `movedDecibels` (8) by the smoothed RSSI of the last seconds, the device has likely walked on, and
///   no café is named while that lasts (the long mean lags a walk by tens of seconds).
/// - Far beacons never name a café. With no near or immediate beacon fresh, a named answer stands
///   until one freshness after its beacon's last near or immediate sighting, then is cleared,
///   dated when it ended.
struct NearestBeaconTracker {
    private let freshnessMilliseconds: Int64
    private let margin: Float
    private let readings: UInt16
    private let aloneReadings: UInt16
    /// `--nearest-moved-db` as a ratio of distances: 10^(dB/20).
    private let movedRatio: Double

    init(freshnessMilliseconds: Int64, marginDecibels: Double = 5, readings: Int = 25, aloneReadings: Int = 3, movedDecibels: Double = 8) {
        self.freshnessMilliseconds = freshnessMilliseconds
        margin = Float(marginDecibels)
        movedRatio = pow(10, movedDecibels / 20)
        self.readings = UInt16(clamping: readings)
        self.aloneReadings = UInt16(clamping: aloneReadings)
    }

    /// Decides a device's nearest beacon at `now`; returns the announcement when it changed.
    func update(_ device: inout DeviceState, now: Int64, uuids: BeaconUUIDTable) -> NearestBeacon? {
        var leader: Heard?
        var anyNear = false, rivalled = false
        // Here and below the heard beacons are walked by index, never `for heard in device.heard`:
        // that copies the list (retaining its heap part) several times per sighting.
        for i in device.heard.indices {
            let heard = device.heard[i]
            guard isFresh(heard, now) else { continue }
            if heard.proximity.decidesPlace {
                anyNear = true
                if var nearest = device.nearest, heard.beacon == nearest.beacon, heard.at > nearest.nearAt {
                    nearest.nearAt = heard.at
                    device.nearest = nearest
                }
            }
            if let current = leader {
                if !current.beacon.samePlace(as: heard.beacon) { rivalled = true }
                if !Self.ranks(heard, before: current) { continue }
            }
            leader = heard
        }
        guard anyNear, let leader else { return noneNear(&device, now: now) }
        if let current = device.nearest, current.beacon.samePlace(as: leader.beacon),
           !rivalled || !contradicted(current.beacon, in: &device, now: now) {
            // Its café still leads: another of its beacons may become the station named.
            guard leader.beacon != current.beacon, leader.proximity.decidesPlace else { return nil }
            return name(&device, leader, now: now, uuids: uuids)
        }
        if conclusive(leader, rivalled: rivalled, in: &device, now: now) { return name(&device, leader, now: now, uuids: uuids) }
        // Undecided: the candidates, announced when the set of cafés changed or a naming ended.
        let key = candidatesKey(device, leader: leader, now: now)
        guard device.nearest != nil || key != device.candidatesKey else { return nil }
        // A lone café on a device with nothing announced is not announced: it is named within a
        // reading or two (`aloneReadings`), and every arriving phone would publish twice.
        // `nearest.get` answers it meanwhile.
        if device.nearest == nil, device.candidatesKey == 0, !rivalled { return nil }
        device.nearest = nil
        device.candidatesKey = key
        return NearestBeacon(deviceId: device.id, beacon: nil, proximity: nil, date: Timestamp(milliseconds: now),
                             candidates: candidates(device, leader: leader, now: now).map { uuids.identity($0.beacon) })
    }

    /// The candidates of an undecided device at `now` (empty when a café is named or none is near).
    func candidates(_ device: DeviceState, now: Int64) -> [Heard] {
        guard device.nearest == nil else { return [] }
        var leader: Heard?
        var anyNear = false
        for i in device.heard.indices {
            let heard = device.heard[i]
            guard isFresh(heard, now) else { continue }
            anyNear = anyNear || heard.proximity.decidesPlace
            if let current = leader, !Self.ranks(heard, before: current) { continue }
            leader = heard
        }
        guard anyNear, let leader else { return [] }
        return candidates(device, leader: leader, now: now)
    }

    /// When a near or immediate beacon stops counting (so the answer is decided again); nil for a
    /// far or unknown one, which never names a café (a rival going stale is seen at the next sighting).
    func staleAt(_ heard: Heard) -> Int64? {
        heard.proximity.decidesPlace ? heard.at + freshnessMilliseconds : nil
    }

    /// When an answer ends unless a near/immediate sighting comes: one freshness after its
    /// beacon's last one.
    func holdEnds(_ nearest: Nearest) -> Int64 {
        nearest.nearAt + freshnessMilliseconds
    }

    // MARK: The rule's parts

    private func isFresh(_ heard: Heard, _ now: Int64) -> Bool {
        now - heard.at < freshnessMilliseconds && heard.accuracy >= 0
    }

    /// Nearer by the evidence; a tie goes to the lower major, then minor, then UUID index, so the
    /// answer does not depend on the order beacons were heard in.
    private static func ranks(_ a: Heard, before b: Heard) -> Bool {
        if a.level != b.level { return a.level > b.level }
        if a.beacon.major != b.beacon.major { return a.beacon.major < b.beacon.major }
        if a.beacon.minor != b.beacon.minor { return a.beacon.minor < b.beacon.minor }
        return a.beacon.uuid < b.beacon.uuid
    }

    /// Whether `leader` names its café: near, and alone long enough or ahead of every other café,
    /// and not contradicted by the latest readings. Alone, the leader's own readings count, not its
    /// café's together: a first report that missed the other café's beacon but heard three of this
    /// one's must not name it (`load-test truth` named the wrong café for two standing phones so).
    private func conclusive(_ leader: Heard, rivalled: Bool, in device: inout DeviceState, now: Int64) -> Bool {
        guard leader.proximity.decidesPlace else { return false }
        guard rivalled else { return leader.readings >= aloneReadings }
        guard leader.readings >= readings, !contradicted(leader.beacon, in: &device, now: now) else { return false }
        var rival = -Float.infinity
        for i in device.heard.indices {
            let heard = device.heard[i]
            guard isFresh(heard, now) && !heard.beacon.samePlace(as: leader.beacon) else { continue }
            rival = max(rival, heard.level)
        }
        return leader.level - rival >= margin
    }

    /// Whether the latest readings say the device has moved away from `beacon`'s café: another
    /// café's beacon, near, is nearer by `moved` dB by the smoothed RSSI of the last seconds (its
    /// accuracy), which follows a walk within seconds while the evidence's mean lags it by tens.
    /// A named café is then no longer named, and none is named while it lasts. It lasts until the
    /// latest readings no longer put another café's near beacon nearer at all (`movedFrom`): the
    /// café the phone walked away from is not named again on its old readings.
    private func contradicted(_ beacon: CompactBeacon, in device: inout DeviceState, now: Int64) -> Bool {
        // By accuracy (the smoothed RSSI's distance): `moved` dB nearer is `movedRatio` times nearer.
        var own = Double.infinity, rival = Double.infinity
        for i in device.heard.indices {
            let heard = device.heard[i]
            guard isFresh(heard, now) else { continue }
            if heard.beacon.samePlace(as: beacon) {
                own = min(own, heard.accuracy)
            } else if heard.proximity.decidesPlace {
                rival = min(rival, heard.accuracy)
            }
        }
        if let from = device.movedFrom, from.samePlace(as: beacon) {
            if rival < own { return true }
            device.movedFrom = nil
            return false
        }
        guard rival.isFinite, own >= rival * movedRatio else { return false }
        device.movedFrom = beacon
        return true
    }

    /// The leading beacon of every café within the margin of `leader` or near, likeliest first, and the
    /// café of the near beacon the latest readings put nearest (a phone that walked on is at the
    /// café it walked to, though the mean still favours the one it left), last.
    private func candidates(_ device: DeviceState, leader: Heard, now: Int64) -> [Heard] {
        var best: [Heard] = []
        for n in device.heard.indices {
            let heard = device.heard[n]
            guard isCandidate(heard, leader: leader, now: now) else { continue }
            if let i = best.firstIndex(where: { $0.beacon.samePlace(as: heard.beacon) }) {
                if Self.ranks(heard, before: best[i]) { best[i] = heard }
            } else {
                best.append(heard)
            }
        }
        best.sort { Self.ranks($0, before: $1) }
        if let latest = latestNear(device, now: now), !best.contains(where: { $0.beacon.samePlace(as: latest.beacon) }) { best.append(latest) }
        return Array(best.prefix(NearestBeacon.maxCandidates))
    }

    /// An order-free key of the cafés `candidates` would list (0: none), without building the
    /// list: most decisions only need to know whether it changed.
    private func candidatesKey(_ device: DeviceState, leader: Heard, now: Int64) -> UInt32 {
        var key: UInt32 = 0
        var latestCounted = false
        let latest = latestNear(device, now: now)
        for i in device.heard.indices {
            let heard = device.heard[i]
            guard isCandidate(heard, leader: leader, now: now) else { continue }
            // Each café once: skip a beacon whose café an earlier candidate counted.
            let counted = (0..<i).contains { isCandidate(device.heard[$0], leader: leader, now: now) && device.heard[$0].beacon.samePlace(as: heard.beacon) }
            if counted { continue }
            key = key &+ Self.placeKey(heard.beacon)
            if let latest, latest.beacon.samePlace(as: heard.beacon) { latestCounted = true }
        }
        if let latest, !latestCounted { key = key &+ Self.placeKey(latest.beacon) }
        return key
    }

    /// A fresh beacon whose café may be where the device is: within the margin of the leader by
    /// the evidence, or near or immediate by the latest readings. The second catches a phone whose
    /// first readings happened to favour the other counter by more than the margin (one phone in
    /// fourteen at the 4 m counters on σ 6 dB): a café whose beacon is near is never left out.
    private func isCandidate(_ heard: Heard, leader: Heard, now: Int64) -> Bool {
        isFresh(heard, now) && (leader.level - heard.level < margin || heard.proximity.decidesPlace)
    }

    /// The near beacon the latest smoothed readings put nearest, if any is fresh.
    private func latestNear(_ device: DeviceState, now: Int64) -> Heard? {
        var latest: Heard?
        for i in device.heard.indices {
            let heard = device.heard[i]
            guard isFresh(heard, now) && heard.proximity.decidesPlace else { continue }
            if let current = latest, !(heard.accuracy < current.accuracy) { continue }
            latest = heard
        }
        return latest
    }

    /// One café's share of a candidates key, mixed so that two sets rarely share a key (a shared
    /// key only skips one announcement).
    private static func placeKey(_ beacon: CompactBeacon) -> UInt32 {
        let place = UInt32(UInt16(bitPattern: beacon.uuid)) << 16 | UInt32(beacon.major)
        return place &* 2_654_435_761 | 1
    }

    private func name(_ device: inout DeviceState, _ leader: Heard, now: Int64, uuids: BeaconUUIDTable) -> NearestBeacon {
        device.nearest = Nearest(beacon: leader.beacon, proximity: leader.proximity, date: now, nearAt: leader.at)
        if let from = device.movedFrom, !from.samePlace(as: leader.beacon) { device.movedFrom = nil }
        device.candidatesKey = 0
        return NearestBeacon(deviceId: device.id, beacon: uuids.identity(leader.beacon), proximity: leader.proximity, date: Timestamp(milliseconds: now))
    }

    /// No near or immediate beacon is fresh: a named answer holds until one freshness after its
    /// beacon's last near sighting, then is cleared; candidates end at once.
    private func noneNear(_ device: inout DeviceState, now: Int64) -> NearestBeacon? {
        if let current = device.nearest {
            let ends = holdEnds(current)
            if now < ends { return nil }
            device.nearest = nil
            device.candidatesKey = 0
            // Dated when it ended, as an exit is: a timer pass or a sighting may come later.
            return NearestBeacon(deviceId: device.id, beacon: nil, proximity: nil, date: Timestamp(milliseconds: ends))
        }
        device.movedFrom = nil
        guard device.candidatesKey != 0 else { return nil }
        device.candidatesKey = 0
        return NearestBeacon(deviceId: device.id, beacon: nil, proximity: nil, date: Timestamp(milliseconds: now))
    }
}
