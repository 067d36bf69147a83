import Foundation

/// SplitMix64: a small deterministic generator, the same on every platform and Swift release (the
/// standard library's `random(in:using:)` may change how it draws). The same seed walks the same
/// phones the same way, in the campus walk and the load test alike.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0 ..< 1.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// A whole number in `range`, uniformly (the modulo bias is below 10⁻¹⁷).
    public mutating func integer(in range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }

    /// A standard normal sample (Box–Muller).
    public mutating func gaussian() -> Double {
        let u = max(unit(), 1e-12)
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * unit())
    }

    /// Two independent standard normal samples (Box–Muller).
    public mutating func gaussianPair() -> (Double, Double) {
        let radius = (-2 * log(1 - unit())).squareRoot()   // 1 - unit() is in (0, 1]: log never sees 0
        let angle = 2 * Double.pi * unit()
        return (radius * cos(angle), radius * sin(angle))
    }

    /// An exponential sample with the given mean.
    public mutating func exponential(mean: Double) -> Double { -mean * log(max(1 - unit(), 1e-12)) }
}
