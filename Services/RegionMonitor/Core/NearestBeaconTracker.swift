#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Messages

/// The nearest beacon per device: decided by near and immediate sightings fresher than the
/// nearest freshness only, so a far beacon never switches the café, and the answer ends one
/// freshness after its beacon's last near or immediate sighting. A named answer moves to another
/// beacon only when that beacon stays nearer for a while (the switching rule), so radio noise at
/// a counter a few metres from another café's beacon does not make the answer alternate.
struct NearestBeaconTracker {
    private let freshnessMilliseconds: Int64
    /// A challenger's estimated distance times this must be under the answer's own (a margin of
    /// `--nearest-switch-margin-db` in the log-distance model with exponent 2: 10^(dB/20)).
    private let marginRatio: Double
    /// A challenger's own sightings must keep it ahead for this long before it takes over.
    private let switchMilliseconds: Int64

    /// Near/immediate sightings count for `freshnessMilliseconds`; a switch needs a challenger
    /// nearer by `marginDecibels` over its sightings for `switchMilliseconds` (0 and 0: at once).
    init(freshnessMilliseconds: Int64, marginDecibels: Double = 0, switchMilliseconds: Int64 = 0) {
        self.freshnessMilliseconds = freshnessMilliseconds
        marginRatio = NearestBeaconTracker.ratio(decibels: marginDecibels)
        self.switchMilliseconds = switchMilliseconds
    }

    /// The distance ratio a margin in dB amounts to: 10^(dB/20) (path-loss exponent 2).
    static func ratio(decibels: Double) -> Double {
        pow(10, decibels / 20)
    }

    /// Decides a device's nearest beacon at `now`; returns the announcement when it changed. The
    /// nearest of the beacons whose latest sighting is near or immediate and younger than the
    /// freshness wins. With none, the current answer stands until one freshness after its own
    /// beacon's last near/immediate sighting (heard far meanwhile, it must not end sooner, nor
    /// far switch the café), then is cleared, dated when it ended. Another beacon takes over a
    /// named answer only by the switching rule (`challenge`).
    func update(_ device: inout DeviceState, now: Int64, uuids: BeaconUUIDTable) -> NearestBeacon? {
        var best: Heard?
        var own: Heard?
        for heard in device.heard where now - heard.at < freshnessMilliseconds {
            if heard.beacon == device.nearest?.beacon, heard.accuracy >= 0 { own = heard }
            guard heard.proximity.decidesPlace else { continue }
            if var nearest = device.nearest, heard.beacon == nearest.beacon {
                if heard.at > nearest.nearAt {
                    nearest.nearAt = heard.at
                    device.nearest = nearest
                }
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
        if best?.beacon == current?.beacon {
            device.nearest?.challenger = nil
            return nil
        }
        // An answer past its own hold has ended: the nearest near beacon follows at once.
        if let best, let current, now < holdEnds(current), !challenge(&device, best: best, own: own, now: now) { return nil }
        device.nearest = best.map { Nearest(beacon: $0.beacon, proximity: $0.proximity, date: now, nearAt: $0.at) }
        return NearestBeacon(deviceId: device.id, beacon: best.map { uuids.identity($0.beacon) }, proximity: best?.proximity, date: Timestamp(milliseconds: now))
    }

    /// The switching rule: `best`, another beacon than the answer's, takes over only once it has
    /// been ahead of the answer's beacon (`own`, its latest sighting within the freshness at any
    /// distance, so a dip that makes it read far does not lift the margin; nil when it has none)
    /// by the margin at every decision for the switch time, and a sighting of its own ends that
    /// time. A decision that finds it not ahead by the margin, or finds another challenger, starts
    /// over; one strong sighting never switches (its beacon must be heard again, still ahead, the
    /// switch time later), nor can two switches come within one report. Returns whether it takes over now.
    private func challenge(_ device: inout DeviceState, best: Heard, own: Heard?, now: Int64) -> Bool {
        guard switchMilliseconds > 0 || marginRatio > 1 else { return true }
        if let own, !(best.accuracy * marginRatio < own.accuracy) {
            device.nearest?.challenger = nil
            return false
        }
        guard let challenger = device.nearest?.challenger, challenger.beacon == best.beacon else {
            device.nearest?.challenger = Challenger(beacon: best.beacon, since: now)
            // An answer announced over 24 days ago cannot hold a challenge (`Nearest.challenger`):
            // its challenger takes over at once.
            return switchMilliseconds == 0 || device.nearest?.challenger == nil
        }
        return best.at - challenger.since >= switchMilliseconds
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
