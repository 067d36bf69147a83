import Messages
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The readings of one beacon by one device. It smooths raw RSSI: a running average over the last
/// `window` seconds (at most `maxSamples` readings) with the strongest and weakest trimmed, which
/// decides proximity and accuracy. It also keeps the evidence for the nearest café: the plain mean
/// of the readable readings of the last `evidenceWindow` seconds (at most `maxEvidence`), with a
/// running total. Standing still, a longer mean is what tells two counters a few metres apart:
/// the shadowing of one beacon stays put for seconds, so ten seconds of readings are far from
/// enough (Services/RegionMonitor/README.md, "Truth under radio noise").
public struct RSSISmoother: Sendable {
    public let window: Double
    public let maxSamples: Int
    public let evidenceWindow: Double
    public let maxEvidence: Int
    /// Readable readings, oldest first: RSSI (dBm) and time (ms after `base`), the evidence
    /// window's worth, 8 bytes each (a device-beacon holds up to `maxEvidence` of them).
    private var samples: [Sample] = []
    private var base: Int64 = 0

    private struct Sample {
        var offset: Int32
        var rssi: Int8
    }
    private var total = 0
    /// The time of the latest reading added, readable or not: what the smoothed RSSI is as of.
    private var latest: Int64?

    public init(window: Double = 10, maxSamples: Int = 10, evidenceWindow: Double = 40, maxEvidence: Int = 40) {
        self.window = window
        self.maxSamples = maxSamples
        self.evidenceWindow = max(window, evidenceWindow)
        self.maxEvidence = max(maxSamples, maxEvidence)
    }

    /// Adds a reading (0 = unreadable, ignored) and returns the smoothed RSSI, or nil when no
    /// usable sample remains in the smoothing window.
    public mutating func add(rssi: Int, at time: Timestamp) -> Double? {
        let now = time.milliseconds
        latest = now
        let keep = Int64(evidenceWindow * 1000)
        if let last = samples.last, base + Int64(last.offset) - now > keep || now - base > Int64(Int32.max) - keep {
            // The clock went back by more than the window, or offsets would outgrow 32 bits: what
            // is held is not near this reading (or too old to matter).
            samples.removeAll(keepingCapacity: true)
            total = 0
        }
        // Readings come in time order (a phone's batch may repeat a time): the expired are in front.
        var expired = 0
        while expired < samples.count, now - (base + Int64(samples[expired].offset)) > keep {
            total -= Int(samples[expired].rssi)
            expired += 1
        }
        if expired > 0 { samples.removeFirst(expired) }
        if rssi != 0, samples.isEmpty { base = now }
        if rssi != 0, let offset = Int32(exactly: now - base) {
            samples.append(Sample(offset: offset, rssi: Int8(clamping: rssi)))
            total += rssi
            if samples.count > maxEvidence {
                total -= Int(samples[0].rssi)
                samples.removeFirst()
            }
        }
        return smoothed(at: now)
    }

    /// The trimmed mean of the last `maxSamples` readings within `window` of `now` (nil when none):
    /// with four or more, the strongest and the weakest left out. No sorting, no allocation: the
    /// hot path of every sighting.
    private func smoothed(at now: Int64) -> Double? {
        let span = Int64(window * 1000)
        var count = 0, sum = 0, low = Int.max, high = Int.min
        var i = samples.count - 1
        while i >= 0, count < maxSamples {
            let sample = samples[i]
            if abs(now - (base + Int64(sample.offset))) <= span {
                let value = Int(sample.rssi)
                count += 1
                sum += value
                low = min(low, value)
                high = max(high, value)
            }
            i -= 1
        }
        guard count > 0 else { return nil }
        if count >= 4 { return Double(sum - low - high) / Double(count - 2) }
        return Double(sum) / Double(count)
    }

    /// The smoothed RSSI as of the latest reading added (nil when no readable one is in the window).
    public var current: Double? { latest.flatMap { smoothed(at: $0) } }

    /// The evidence: the mean of the readings held (dBm, to 0.1) and how many; nil when none.
    public var evidence: (mean: Double, readings: Int)? {
        guard !samples.isEmpty else { return nil }
        return ((Double(total) / Double(samples.count) * 10).rounded() / 10, samples.count)
    }

    /// The newest readable reading's time (held for the evidence window), which expiry of idle state goes by.
    public var lastSample: Timestamp? { samples.last.map { Timestamp(milliseconds: base + Int64($0.offset)) } }
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
