import Messages
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Smooths raw RSSI per (device, beacon): a running average over recent samples with the
/// strongest and weakest trimmed, samples expiring after `window` seconds.
public struct RSSISmoother: Sendable {
    public let window: Double
    public let maxSamples: Int
    private var samples: [(rssi: Int, at: Timestamp)] = []

    public init(window: Double = 10, maxSamples: Int = 10) {
        self.window = window
        self.maxSamples = maxSamples
    }

    /// Adds a reading (0 = unreadable, ignored) and returns the smoothed RSSI, or nil when no
    /// usable sample remains.
    public mutating func add(rssi: Int, at time: Timestamp) -> Double? {
        samples.removeAll { time.seconds(since: $0.at) > window || $0.at > time.adding(seconds: window) }
        if rssi != 0 {
            samples.append((rssi, time))
            if samples.count > maxSamples { samples.removeFirst(samples.count - maxSamples) }
        }
        return current
    }

    /// The trimmed mean of the samples held (nil when none).
    public var current: Double? {
        guard !samples.isEmpty else { return nil }
        var values = samples.map(\.rssi).sorted()
        if values.count >= 4 {
            values.removeFirst()
            values.removeLast()
        }
        return Double(values.reduce(0, +)) / Double(values.count)
    }

    /// The newest sample's time.
    public var lastSample: Timestamp? { samples.last?.at }
}

/// Distance from RSSI and measured power (calibrated RSSI at 1 m) with the log-distance path-loss
/// model, and Core Location's proximity classes.
public enum ProximityEstimator {
    /// Path-loss exponent: 2 in free space, higher indoors.
    public static let pathLossExponent = 2.0

    /// Estimated distance in metres, or -1 when there is no usable signal.
    public static func distance(rssi: Double?, measuredPower: Int) -> Double {
        guard let rssi, rssi < 0 else { return -1 }
        return pow10((Double(measuredPower) - rssi) / (10 * pathLossExponent))
    }

    /// immediate under 0.5 m, near under 4 m, far beyond, unknown without a usable signal.
    public static func proximity(distance: Double) -> Proximity {
        if distance < 0 { return .unknown }
        if distance < 0.5 { return .immediate }
        if distance < 4 { return .near }
        return .far
    }

    static func pow10(_ x: Double) -> Double {
        // exp(x · ln 10), avoiding a Foundation dependency in the hot path.
        exp(x * 2.302585092994046)
    }
}
