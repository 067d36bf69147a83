import Foundation

/// The stale wave's books: when each quiet device's nearest answer was due to end (its last
/// sighting plus region-monitor's nearest freshness), when its clearing was seen on the bus, and
/// what that makes of the wave: how late each clearing came against its due time, when the last
/// one came, and which devices were never seen cleared.
///
/// Times are seconds on the bench's monotonic clock (`Bench.now()`), fed by the driver; nothing
/// here reads a clock, so a unit test gives it every time.
struct StaleWaveAccount {
    /// Seconds an answer outlives its last near sighting (region-monitor's `--nearest-freshness-seconds`).
    let freshness: Double
    /// Due time by device number, for the quiet devices only.
    private var due: [Int: Double] = [:]
    /// When each quiet device's answer was first seen cleared.
    private var clearedAt: [Int: Double] = [:]
    /// Answers naming a café for a quiet device: nothing sights it, so none should come.
    private(set) var named = 0

    /// `quiet`: each quiet device with the time it was last sighted. One never sighted has no
    /// answer to end and is left out.
    init(freshness: Double, quiet: [(device: Int, lastSighted: Double?)]) {
        self.freshness = freshness
        for entry in quiet {
            if let last = entry.lastSighted { due[entry.device] = last + freshness }
        }
    }

    /// Quiet devices with a due time.
    var quietDevices: Int { due.count }

    /// Whether `device` is one of the quiet devices.
    func isQuiet(_ device: Int) -> Bool { due[device] != nil }

    /// A `region.nearest` answer about `device` seen at `at`: `cleared` when it names no café.
    /// Only a quiet device's first clearing counts; another device's answer is ignored.
    mutating func answer(device: Int, cleared: Bool, at: Double) {
        guard due[device] != nil else { return }
        guard cleared else {
            named += 1
            return
        }
        if clearedAt[device] == nil { clearedAt[device] = at }
    }

    /// The quiet devices not seen cleared, in device order.
    var unseen: [Int] { due.keys.filter { clearedAt[$0] == nil }.sorted() }

    /// The wave's figures. `stillNamed`: how many of the `asked` first of `unseen` (all of them,
    /// or a sample spread over them) region-monitor still named when asked after the wave
    /// (`nearest.get`). `probes`: the fresh devices' sighting → region event
    /// latencies with their due times (same clock); those due within the wave are its latencies.
    func figures(stillNamed: Int, asked: Int, askedAt: Double, probes: [(due: Double, ms: Double)]) -> PlatformBenchmark.StaleWave {
        let dues = due.values
        guard let firstDue = dues.min(), let lastDue = dues.max() else {
            return PlatformBenchmark.StaleWave(quietDevices: 0, cleared: 0, unseen: 0, asked: 0, stillNamed: 0, named: named, dueSeconds: 0, lastClearedAfter: nil,
                                               tailSeconds: nil, stillNamedAfter: 0, lateness: [], latencies: [])
        }
        let lateness = clearedAt.map { device, at in (at - due[device]!) * 1000 }.sorted()
        let lastCleared = clearedAt.values.max()
        let end = max(lastCleared ?? lastDue, lastDue)
        let during = probes.filter { $0.due >= firstDue && $0.due <= end }.map(\.ms).sorted()
        let unseen = due.count - clearedAt.count
        // A sample speaks for the devices not asked, in proportion.
        let estimated = asked > 0 ? Int((Double(stillNamed) * Double(unseen) / Double(asked)).rounded()) : 0
        return PlatformBenchmark.StaleWave(quietDevices: due.count, cleared: clearedAt.count, unseen: unseen, asked: asked, stillNamed: estimated, named: named,
                                           dueSeconds: lastDue - firstDue, lastClearedAfter: lastCleared.map { $0 - firstDue },
                                           tailSeconds: lastCleared.map { $0 - lastDue }, stillNamedAfter: askedAt - lastDue,
                                           lateness: lateness, latencies: during)
    }
}

extension PlatformBenchmark {
    /// A wave of devices going stale beside the latency rate, on its own: the quiet devices'
    /// nearest answers, due to end over `dueSeconds`, how many were seen cleared and how late
    /// against their due times, and the sighting → region event latencies of the fresh devices
    /// due meanwhile (all sorted, ms).
    struct StaleWave {
        var quietDevices: Int
        /// Quiet devices whose answer was seen cleared on the bus.
        var cleared: Int
        /// Quiet devices not seen cleared, and how many of them were asked about after the wave.
        var unseen: Int
        var asked: Int
        /// Of the unseen, how many region-monitor still named when asked (in proportion when only
        /// a sample was asked).
        var stillNamed: Int
        /// Answers naming a café for a quiet device during the wave (none should come).
        var named: Int
        /// From the first answer due to the last.
        var dueSeconds: Double
        /// From the first answer due to the last clearing seen (nil: none seen).
        var lastClearedAfter: Double?
        /// From the last answer due to the last clearing seen.
        var tailSeconds: Double?
        /// How long after the last answer was due the unseen ones were asked about.
        var stillNamedAfter: Double
        /// Each clearing seen against its due time, ms.
        var lateness: [Double]
        var latencies: [Double]

        /// Quiet devices neither seen cleared nor still named: no answer to clear (never named)
        /// or a clearing the bench missed.
        var unaccounted: Int { quietDevices - cleared - stillNamed }

        /// Every answer that was named got cleared: none of the unseen asked about is still named.
        var allCleared: Bool { cleared > 0 && stillNamed == 0 && (unseen == 0 || asked > 0) }

        /// The p99 of the clearings' lateness, counting an answer still named as later than any
        /// (nil then: the p99 was not reached while the bench watched).
        var latenessP99: Double? {
            let total = cleared + stillNamed
            guard total > 0, Double(stillNamed) < Double(total) * 0.01 else { return nil }
            let all = lateness + Array(repeating: Double.infinity, count: stillNamed)
            let p99 = Bench.percentile(all, 99)
            return p99.isFinite ? p99 : nil
        }
    }
}
