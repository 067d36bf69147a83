import Foundation

/// Since when each followed stream has been behind what its publisher announced: a catch-up
/// that keeps failing shows in health.
struct StreamLag {
    private var behindSince: [StreamKey: Double] = [:]

    /// Notes, from a heartbeat at monotonic time `now`, which of `source`'s streams are behind.
    mutating func observe(_ source: String, announced: [String: UInt64], now: Double, cursor: (StreamKey) -> UInt64) {
        for (stream, last) in announced {
            let key = StreamKey(source: source, stream: stream)
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
}
