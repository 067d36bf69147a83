import Foundation

/// Since when each followed stream has been behind what its publisher announced: a catch-up
/// that keeps failing shows in health. It also keeps what each publisher last announced and when
/// each was last heard, for the lag and heartbeat figures health gives a scraper.
struct StreamLag {
    private var behindSince: [StreamKey: Double] = [:]
    private var announcedSeq: [StreamKey: UInt64] = [:]
    private var lastHeard: [String: Double] = [:]
    /// Publishers remembered by their last heartbeat; past it, a new name replaces none (plain
    /// mode lets anyone publish a heartbeat under any name).
    static let maxSources = 256

    /// Notes, from a heartbeat at monotonic time `now`, which of `source`'s streams are behind.
    mutating func observe(_ source: String, announced: [String: UInt64], now: Double, cursor: (StreamKey) -> UInt64) {
        if lastHeard[source] == nil, lastHeard.count >= Self.maxSources {
            lastHeard = lastHeard.filter { now - $0.value <= Self.forgetSeconds }
        }
        if lastHeard[source] != nil || lastHeard.count < Self.maxSources { lastHeard[source] = now }
        for (stream, last) in announced {
            let key = StreamKey(source: source, stream: stream)
            announcedSeq[key] = last
            if last > cursor(key) {
                if behindSince[key] == nil { behindSince[key] = now }
            } else {
                behindSince[key] = nil
            }
        }
    }

    /// The streams ("source/stream") behind since before `now - seconds`.
    func behind(longerThan seconds: Double, now: Double) -> [String] {
        behindSince.filter { now - $0.value > seconds }.map { $0.key.name }.sorted()
    }

    /// Each followed stream's lag at `now`: events announced and not yet applied, and for how long
    /// it has been behind (0 once the cursor reached what was announced).
    func lags(now: Double, cursor: (StreamKey) -> UInt64) -> [StreamKey: (events: UInt64, seconds: Double)] {
        var lags: [StreamKey: (events: UInt64, seconds: Double)] = [:]
        for (key, last) in announcedSeq {
            let applied = cursor(key)
            let events = last > applied ? last - applied : 0
            lags[key] = (events, events > 0 ? behindSince[key].map { max(now - $0, 0) } ?? 0 : 0)
        }
        return lags
    }

    /// A publisher silent this long is no longer reported: a shard taken away, or a name a plain-mode
    /// client published under once, does not alert for ever (a process that is down shows as down).
    static let forgetSeconds = 3_600.0

    /// Seconds since each publisher's last heartbeat, for those heard within `forgetSeconds`.
    func heartbeatAges(now: Double) -> [String: Double] {
        lastHeard.filter { now - $0.value <= Self.forgetSeconds }.mapValues { max(now - $0, 0) }
    }
}
