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

    /// The accuracy (metres, to the centimetre; -1 when unknown) and proximity a sighting carries.
    ///
    /// The smoothed RSSI decides. When it is unusable (no readable sample in the window: every
    /// reading was 0), the phone's own estimate stands in, if it has one: an accuracy of 0 m or
    /// more, with its proximity class, or the class of that accuracy when it sent none. A phone
    /// that says `unknown` or -1 has nothing to offer, and the answer is unknown, -1. A class
    /// without an accuracy is not taken either: region-monitor orders beacons by accuracy, and a
    /// "near" beacon at -1 m would beat every measured one.
    public static func estimate(rssi: Double?, measuredPower: Int, reportedProximity: Proximity?, reportedAccuracy: Double?)
        -> (accuracy: Double, proximity: Proximity) {
        let distance = self.distance(rssi: rssi, measuredPower: measuredPower)
        if distance >= 0 { return ((distance * 100).rounded() / 100, proximity(distance: distance)) }
        guard let reportedAccuracy, reportedAccuracy >= 0, reportedProximity != .unknown else { return (-1, .unknown) }
        return (reportedAccuracy, reportedProximity ?? proximity(distance: reportedAccuracy))
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
