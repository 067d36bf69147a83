/// A latency histogram in the style of HdrHistogram: log-linear buckets, so every recorded value
/// is kept to a fixed number of significant decimal digits whatever its magnitude.
///
/// Values are unsigned integers in whatever unit the caller picks (the load generator records
/// microseconds). Recording is O(1) and allocation-free; memory is fixed at creation (about 26 KB
/// for 2 significant digits up to one hour in microseconds). Values above `highestTrackable` are
/// not dropped: they are counted in `count` and `overflowCount`, kept in `max` and `mean`, and a
/// percentile that lands among them reports `max`.
///
/// Layout (as in HdrHistogram): bucket 0 holds 0 ..< subBucketCount with a step of 1; bucket b ≥ 1
/// holds the upper half of its range, subBucketCount/2 · 2^b ..< subBucketCount · 2^b, with a step
/// of 2^b. A value is therefore reported with a relative error of at most `relativeError`.
public struct Histogram: Sendable, Equatable {
    /// Values up to this are tracked to `significantDigits`; larger ones count as overflow.
    public let highestTrackable: UInt64
    /// Decimal digits kept for every value (1…5).
    public let significantDigits: Int

    private let subBucketCount: Int
    private let subBucketHalfCount: Int
    private let subBucketHalfCountMagnitude: Int
    private let subBucketMask: UInt64
    private var counts: [UInt64]

    /// How many values were recorded, overflow included.
    public private(set) var count: UInt64 = 0
    /// How many values were above `highestTrackable`.
    public private(set) var overflowCount: UInt64 = 0
    /// The exact smallest and largest recorded values (0 when empty).
    public private(set) var min: UInt64 = 0
    public private(set) var max: UInt64 = 0
    /// The exact sum, as a Double so it cannot overflow.
    public private(set) var sum: Double = 0

    /// One hour in microseconds: the default upper bound of the load generator's latencies.
    public static let oneHourMicroseconds: UInt64 = 3_600_000_000

    /// A histogram tracking 0…`highestTrackable` to `significantDigits` decimal digits.
    public init(highestTrackable: UInt64 = Histogram.oneHourMicroseconds, significantDigits: Int = 2) {
        precondition((1...5).contains(significantDigits), "significantDigits must be 1…5")
        precondition(highestTrackable >= 2, "highestTrackable must be at least 2")
        self.highestTrackable = highestTrackable
        self.significantDigits = significantDigits
        // Enough sub-buckets that one step is at most 10^-digits of the smallest value in the
        // bucket: the smallest power of two ≥ 2·10^digits.
        var largestSingleUnit = 2
        for _ in 0..<significantDigits { largestSingleUnit *= 10 }
        var magnitude = 0
        while (1 << magnitude) < largestSingleUnit { magnitude += 1 }
        subBucketCount = 1 << magnitude
        subBucketHalfCount = subBucketCount / 2
        subBucketHalfCountMagnitude = magnitude - 1
        subBucketMask = UInt64(subBucketCount - 1)
        var bucketCount = 1
        var smallestUntrackable = UInt64(subBucketCount)
        while smallestUntrackable <= highestTrackable {
            if smallestUntrackable > UInt64.max / 2 {
                bucketCount += 1
                break
            }
            smallestUntrackable <<= 1
            bucketCount += 1
        }
        counts = Array(repeating: 0, count: (bucketCount + 1) * subBucketHalfCount)
    }

    /// The largest relative difference between a recorded value and the value reported for it.
    public var relativeError: Double { 1 / Double(subBucketHalfCount) }

    /// Whether nothing was recorded.
    public var isEmpty: Bool { count == 0 }

    /// The mean of every recorded value (0 when empty).
    public var mean: Double { count == 0 ? 0 : sum / Double(count) }

    /// Records `value`, `times` times.
    public mutating func record(_ value: UInt64, times: UInt64 = 1) {
        guard times > 0 else { return }
        if count == 0 {
            min = value
            max = value
        } else {
            if value < min { min = value }
            if value > max { max = value }
        }
        count += times
        sum += Double(value) * Double(times)
        if value > highestTrackable {
            overflowCount += times
        } else {
            counts[index(of: value)] += times
        }
    }

    /// Adds every value recorded in `other` (which may have another layout).
    public mutating func merge(_ other: Histogram) {
        guard other.count > 0 else { return }
        if other.layoutMatches(self) {
            for i in other.counts.indices where other.counts[i] > 0 { counts[i] += other.counts[i] }
        } else {
            for i in other.counts.indices where other.counts[i] > 0 {
                let value = other.highestEquivalent(other.valueAt(index: i))
                let clamped = Swift.min(Swift.max(value, other.min), other.max)
                if clamped > highestTrackable {
                    overflowCount += other.counts[i]
                } else {
                    counts[index(of: clamped)] += other.counts[i]
                }
            }
        }
        // Other's overflow values are only known by their maximum: keep them as overflow here too.
        overflowCount += other.overflowCount
        if count == 0 {
            min = other.min
            max = other.max
        } else {
            min = Swift.min(min, other.min)
            max = Swift.max(max, other.max)
        }
        count += other.count
        sum += other.sum
    }

    /// Forgets every recorded value; the layout stays.
    public mutating func reset() {
        for i in counts.indices { counts[i] = 0 }
        count = 0
        overflowCount = 0
        min = 0
        max = 0
        sum = 0
    }

    /// The value at percentile `p` (0…100) by nearest rank: the smallest recorded value with at
    /// least p % of the values at or below it, reported within `relativeError` (and never outside
    /// min…max). 0 when empty.
    public func value(atPercentile p: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let clampedP = Swift.min(Swift.max(p, 0), 100)
        // The small epsilon keeps 99.9 % of 1000 at rank 999 despite binary floating point.
        let rank = Swift.max(1, UInt64((clampedP / 100 * Double(count) - 1e-9).rounded(.up)))
        var seen: UInt64 = 0
        for i in counts.indices where counts[i] > 0 {
            seen += counts[i]
            if seen >= rank {
                return Swift.min(Swift.max(highestEquivalent(valueAt(index: i)), min), max)
            }
        }
        // The rank lies among the overflow values, which are only known by their maximum.
        return max
    }

    /// Whether two recorded values would be reported as the same value.
    public func areEquivalent(_ a: UInt64, _ b: UInt64) -> Bool {
        lowestEquivalent(a) == lowestEquivalent(b)
    }

    // MARK: - Layout

    private func layoutMatches(_ other: Histogram) -> Bool {
        subBucketCount == other.subBucketCount && counts.count == other.counts.count
    }

    private func bucketIndex(of value: UInt64) -> Int {
        // The position of the highest set bit, counted so that bucket 0 covers 0 ..< subBucketCount.
        let leadingZeroCountBase = 64 - subBucketHalfCountMagnitude - 1
        return leadingZeroCountBase - (value | subBucketMask).leadingZeroBitCount
    }

    private func index(of value: UInt64) -> Int {
        let bucket = bucketIndex(of: value)
        let subBucket = Int(value >> UInt64(bucket))
        return ((bucket + 1) << subBucketHalfCountMagnitude) + (subBucket - subBucketHalfCount)
    }

    private func valueAt(index: Int) -> UInt64 {
        var bucket = (index >> subBucketHalfCountMagnitude) - 1
        var subBucket = (index & (subBucketHalfCount - 1)) + subBucketHalfCount
        if bucket < 0 {
            subBucket -= subBucketHalfCount
            bucket = 0
        }
        return UInt64(subBucket) << UInt64(bucket)
    }

    private func lowestEquivalent(_ value: UInt64) -> UInt64 {
        let bucket = bucketIndex(of: value)
        return (value >> UInt64(bucket)) << UInt64(bucket)
    }

    private func highestEquivalent(_ value: UInt64) -> UInt64 {
        let bucket = bucketIndex(of: value)
        let width = UInt64(1) << UInt64(bucket)
        let lowest = (value >> UInt64(bucket)) << UInt64(bucket)
        return lowest &+ (width - 1)
    }
}
