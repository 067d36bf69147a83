/// A latency histogram with fixed bucket bounds, in Prometheus's shape: a count per bound, the
/// sum and the count. Cheap to record (a short scan of 15 bounds), fixed in size, and carried in a
/// `health` reply as one short string (`encoded`), which the edge turns into `_bucket`, `_sum` and
/// `_count` samples. `Histogram` (HDR-style) is the load generator's, for percentiles; this one is
/// for a scraper, which computes quantiles itself (`histogram_quantile`) across instances.
public struct LatencyBuckets: Sendable, Equatable {
    /// Upper bounds in seconds, from half a millisecond (a request on an idle service) to 30 s
    /// (an order's notification after a long catch-up). One more bucket, +Inf, is implied.
    public static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    /// Values at or below each bound, and not below the one before: `bounds.count + 1` counts,
    /// the last for values above every bound.
    public private(set) var counts: [UInt64]
    /// The sum of every recorded value, in seconds.
    public private(set) var sum: Double = 0

    /// An empty histogram.
    public init() {
        counts = Array(repeating: 0, count: Self.bounds.count + 1)
    }

    /// How many values were recorded.
    public var count: UInt64 { counts.reduce(0, &+) }

    /// Records one duration in seconds; a negative one (clocks of two hosts apart) counts as 0.
    public mutating func record(seconds: Double) {
        let value = seconds.isFinite ? max(seconds, 0) : 0
        var index = Self.bounds.count
        for (i, bound) in Self.bounds.enumerated() where value <= bound {
            index = i
            break
        }
        counts[index] &+= 1
        sum += value
    }

    /// The count at or below each bound (Prometheus's `le` buckets), then the total.
    public var cumulative: [UInt64] {
        var running: UInt64 = 0
        return counts.map { running &+= $0; return running }
    }

    /// `count;sum;c1,c2,…` with the cumulative count at each bound: the form a health reply carries.
    public var encoded: String {
        "\(count);\(sum);" + cumulative.dropLast().map(String.init).joined(separator: ",")
    }

    /// The longest `encoded` form read back: 17 numbers of at most 24 characters, with separators.
    public static let maxEncodedLength = 512

    /// Reads `encoded` back, or nil when it is not exactly that form: one count per bound, never
    /// decreasing and never above the total, a finite sum not below 0.
    public init?(encoded text: String) {
        guard text.utf8.count <= Self.maxEncodedLength else { return nil }
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        guard parts.count == 3, let total = UInt64(parts[0]), let sum = Double(parts[1]), sum.isFinite, sum >= 0 else { return nil }
        let fields = parts[2].split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == Self.bounds.count else { return nil }
        var counts: [UInt64] = []
        var previous: UInt64 = 0
        for field in fields {
            guard let value = UInt64(field), value >= previous, value <= total else { return nil }
            counts.append(value - previous)
            previous = value
        }
        counts.append(total - previous)
        self.counts = counts
        self.sum = sum
    }
}
