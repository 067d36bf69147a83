import Foundation
import Metrics
import Testing

/// The load generator's percentiles: within the stated relative error of exact percentiles
/// computed from the sorted samples, and honest at the edges (empty, one value, overflow).
@Suite("Histogram")
struct HistogramTests {
    /// The nearest-rank percentile of sorted samples: the smallest value with at least p % at or below it.
    static func exact(_ sorted: [UInt64], _ p: Double) -> UInt64 {
        let rank = max(1, Int((p / 100 * Double(sorted.count) - 1e-9).rounded(.up)))
        return sorted[min(rank, sorted.count) - 1]
    }

    /// A deterministic generator (SplitMix64), so a failure can be reproduced.
    struct SplitMix {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    }

    static let percentiles: [Double] = [0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100]

    @Test("percentiles agree with sorted samples within the relative error", arguments: [
        ("uniform 0…1 s in µs", 1, 2),
        ("log-normal latencies", 2, 2),
        ("heavy tail", 3, 3),
        ("small integers", 4, 1),
    ])
    func percentilesMatchExact(name: String, shape: Int, digits: Int) {
        var random = SplitMix(state: UInt64(shape) * 7919)
        var histogram = Histogram(significantDigits: digits)
        var samples: [UInt64] = []
        for _ in 0..<50_000 {
            let value: UInt64 = switch shape {
            case 1: random.next() % 1_000_000
            case 2: UInt64(exp(7 + 1.2 * gaussian(&random)))
            case 3: UInt64(100 / pow(1 - random.unit() * 0.999_999, 1.5))
            default: random.next() % 50
            }
            samples.append(value)
            histogram.record(value)
        }
        samples.sort()
        #expect(histogram.count == UInt64(samples.count))
        #expect(histogram.min == samples.first)
        #expect(histogram.max == samples.last)
        let exactMean = samples.reduce(0.0) { $0 + Double($1) } / Double(samples.count)
        #expect(abs(histogram.mean - exactMean) <= exactMean * 1e-9)
        for p in Self.percentiles {
            let expected = Self.exact(samples, p)
            let reported = histogram.value(atPercentile: p)
            let allowed = Double(expected) * histogram.relativeError
            #expect(reported >= expected, "\(name) p\(p): \(reported) below the exact \(expected)")
            #expect(Double(reported - min(reported, expected)) <= allowed, "\(name) p\(p): \(reported) vs exact \(expected), allowed ±\(allowed)")
        }
    }

    @Test("the relative error is what the significant digits promise")
    func relativeErrorBound() {
        #expect(Histogram(significantDigits: 1).relativeError <= 0.1)
        #expect(Histogram(significantDigits: 2).relativeError <= 0.01)
        #expect(Histogram(significantDigits: 3).relativeError <= 0.001)
        // Every value below 2·10^digits is kept exactly.
        var histogram = Histogram(significantDigits: 2)
        for value in UInt64(0)..<200 {
            histogram.reset()
            histogram.record(value)
            #expect(histogram.value(atPercentile: 50) == value)
        }
    }

    @Test("an empty histogram reports zeros")
    func empty() {
        let histogram = Histogram()
        #expect(histogram.isEmpty)
        #expect(histogram.count == 0)
        #expect(histogram.min == 0 && histogram.max == 0 && histogram.mean == 0)
        for p in Self.percentiles { #expect(histogram.value(atPercentile: p) == 0) }
    }

    @Test("one value is every percentile, exactly", arguments: [UInt64(0), 1, 127, 12_345, 987_654_321])
    func oneValue(value: UInt64) {
        var histogram = Histogram()
        histogram.record(value)
        #expect(histogram.count == 1)
        #expect(histogram.min == value && histogram.max == value && histogram.mean == Double(value))
        for p in Self.percentiles { #expect(histogram.value(atPercentile: p) == value) }
    }

    @Test("the highest trackable value is tracked, not overflow")
    func highestTrackable() {
        var histogram = Histogram(highestTrackable: Histogram.oneHourMicroseconds)
        histogram.record(Histogram.oneHourMicroseconds)
        histogram.record(1)
        #expect(histogram.overflowCount == 0)
        #expect(histogram.value(atPercentile: 100) == Histogram.oneHourMicroseconds)
        #expect(histogram.value(atPercentile: 50) == 1)
    }

    @Test("values beyond the range are counted, kept in max and mean, and reported")
    func overflow() {
        var histogram = Histogram(highestTrackable: 10_000)
        for _ in 0..<98 { histogram.record(100) }
        histogram.record(50_000)
        histogram.record(UInt64.max / 4)
        #expect(histogram.count == 100)
        #expect(histogram.overflowCount == 2)
        #expect(histogram.max == UInt64.max / 4)
        #expect(histogram.value(atPercentile: 50) == 100)
        #expect(histogram.value(atPercentile: 98) == 100)
        // Percentiles among the overflow values report the largest value seen, never less.
        #expect(histogram.value(atPercentile: 99) == UInt64.max / 4)
        #expect(histogram.value(atPercentile: 100) == UInt64.max / 4)
        #expect(histogram.mean > Double(UInt64.max / 4) / 100 * 0.99)
    }

    @Test("merging equals recording everything in one histogram")
    func merge() {
        var random = SplitMix(state: 42)
        var a = Histogram(), b = Histogram(), all = Histogram()
        for i in 0..<10_000 {
            let value = random.next() % 5_000_000
            if i % 3 == 0 { a.record(value) } else { b.record(value) }
            all.record(value)
        }
        var merged = a
        merged.merge(b)
        #expect(merged == all)
        // Merging into an empty histogram, and merging an empty one, change nothing else.
        var empty = Histogram()
        empty.merge(all)
        #expect(empty == all)
        merged.merge(Histogram())
        #expect(merged == all)
    }

    @Test("merging histograms of different precision stays within the coarser error")
    func mergeAcrossLayouts() {
        var coarse = Histogram(significantDigits: 1)
        var fine = Histogram(significantDigits: 3)
        var samples: [UInt64] = []
        for value in stride(from: UInt64(1_000), to: 1_000_000, by: 997) {
            fine.record(value)
            samples.append(value)
        }
        coarse.merge(fine)
        #expect(coarse.count == fine.count)
        #expect(coarse.min == fine.min && coarse.max == fine.max)
        for p in [50.0, 90, 99] {
            let expected = Self.exact(samples, p)
            let reported = coarse.value(atPercentile: p)
            #expect(abs(Double(reported) - Double(expected)) <= Double(expected) * ((1 + coarse.relativeError) * (1 + fine.relativeError) - 1))
        }
    }

    @Test("reset forgets every value and keeps the layout")
    func reset() {
        var histogram = Histogram()
        for value in UInt64(1)...1_000 { histogram.record(value, times: 3) }
        #expect(histogram.count == 3_000)
        histogram.reset()
        #expect(histogram == Histogram())
        histogram.record(7)
        #expect(histogram.value(atPercentile: 99.9) == 7)
    }

    @Test("recording many at once equals recording one at a time")
    func recordTimes() {
        var once = Histogram(), many = Histogram()
        once.record(4_242, times: 5)
        for _ in 0..<5 { many.record(4_242) }
        #expect(once == many)
        once.record(1, times: 0)
        #expect(once == many)
    }
}

/// A standard normal sample (Box–Muller).
private func gaussian(_ random: inout HistogramTests.SplitMix) -> Double {
    let u = max(random.unit(), 1e-12)
    let v = random.unit()
    return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
}
