import Foundation

/// The radio a phone meets indoors, as issue 25 measured it: log-distance path loss from the
/// beacon's measured power (exponent `nearExponent` up to `breakpoint` metres, `farExponent`
/// beyond), log-normal shadowing of `sigma` dB correlated over `correlationSeconds` (an AR(1)
/// process per phone and beacon), `missRate` of advertisements missed, and body-blocking dips of
/// `dipDepth` dB lasting 1–3 s arriving `dipsPerMinute` times a minute. Pure and seeded.
public struct RadioNoise: Sendable, Equatable {
    public var nearExponent = 2.0
    public var farExponent = 3.5
    public var breakpoint = 10.0
    public var sigma = 6.0
    public var correlationSeconds = 2.0
    public var missRate = 0.2
    public var dipDepth = 10.0
    public var dipsPerMinute = 2.0
    /// The weakest advertisement a phone still reports (dBm); weaker ones are not heard.
    public var floor = -100.0

    public init() {}

    /// The mean RSSI `metres` from a beacon whose power at 1 m is `measuredPower`.
    public func pathLoss(metres: Double, measuredPower: Double) -> Double {
        let d = max(0.1, metres)
        if d <= breakpoint { return measuredPower - 10 * nearExponent * log10(d) }
        return measuredPower - 10 * nearExponent * log10(breakpoint) - 10 * farExponent * log10(d / breakpoint)
    }

    /// The AR(1) coefficient of the shadowing for samples `step` seconds apart.
    public func correlation(step: Double) -> Double { correlationSeconds > 0 ? exp(-step / correlationSeconds) : 0 }
}

/// One phone–beacon link under `RadioNoise`: its shadowing and dip state, advanced a step at a time.
public struct RadioLink: Sendable {
    /// Current shadowing, dB (stationary: normal with the model's σ).
    public private(set) var shadow: Double
    /// Seconds of body-blocking dip left.
    public private(set) var dipLeft = 0.0

    /// A link whose shadowing starts from its stationary distribution.
    public init(noise: RadioNoise, random: inout SeededRandom) {
        shadow = random.gaussian() * noise.sigma
    }

    /// Advances the link by `step` seconds (dips `dipScale` times as frequent as the model says)
    /// and returns the advertisement heard at `metres`, or nil when it was missed or too weak.
    public mutating func sample(noise: RadioNoise, metres: Double, measuredPower: Double, step: Double, dipScale: Double = 1,
                                random: inout SeededRandom) -> Int? {
        let rho = noise.correlation(step: step)
        shadow = rho * shadow + (1 - rho * rho).squareRoot() * noise.sigma * random.gaussian()
        dipLeft = max(0, dipLeft - step)
        if dipLeft == 0, random.chance(noise.dipsPerMinute * dipScale * step / 60) { dipLeft = 1 + 2 * random.unit() }
        let missed = random.chance(noise.missRate)
        let value = noise.pathLoss(metres: metres, measuredPower: measuredPower) + shadow - (dipLeft > 0 ? noise.dipDepth : 0)
        guard !missed, value >= noise.floor else { return nil }
        return Int(min(-20, value).rounded())
    }
}

/// GPS indoors: a precise fix whose stated accuracy is 5–65 m and whose error is drawn within it,
/// or, with `approximateRate`, an approximate fix (1–3 km, holding the true point).
public struct GPSNoise: Sendable, Equatable {
    public var accuracy: ClosedRange<Double> = 5...65
    public var approximateRate = 0.05

    public init() {}

    /// A fix around the true point `metres` (east, north) from (`latitude`, `longitude`).
    public func fix(latitude: Double, longitude: Double, east: Double, north: Double, random: inout SeededRandom)
        -> (latitude: Double, longitude: Double, accuracy: Double, precise: Bool) {
        if random.chance(approximateRate) {
            // An approximate location is a coarse area that holds the phone: the true point lies
            // within half its stated accuracy.
            let accuracy = 1_000 + random.unit() * 2_000
            let radius = random.unit() * accuracy / 2, angle = random.unit() * 2 * .pi
            let (lat, lon) = Self.offset(latitude, longitude, east: east + radius * cos(angle), north: north + radius * sin(angle))
            return (lat, lon, accuracy, false)
        }
        let accuracy = accuracy.lowerBound + random.unit() * (accuracy.upperBound - accuracy.lowerBound)
        // The stated accuracy is about one σ of the radial error, as Core Location's is a 68% radius.
        let (e, n) = random.gaussianPair()
        let (lat, lon) = Self.offset(latitude, longitude, east: east + e * accuracy / 1.5, north: north + n * accuracy / 1.5)
        return (lat, lon, accuracy, true)
    }

    /// The point `east`/`north` metres from (`latitude`, `longitude`).
    public static func offset(_ latitude: Double, _ longitude: Double, east: Double, north: Double) -> (Double, Double) {
        let metresPerDegree = 111_320.0
        return (latitude + north / metresPerDegree, longitude + east / (metresPerDegree * cos(latitude * .pi / 180)))
    }
}
