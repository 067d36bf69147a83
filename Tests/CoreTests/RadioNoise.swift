import BeaconIngestCore
import Foundation
import Messages
import RegionMonitorCore

/// Indoor radio noise, seeded (issue 25's model): log-distance path loss from the beacon's
/// measured power (exponent 2), log-normal shadowing of σ dB correlated over `correlation`
/// seconds (an AR(1) process per beacon), a share of advertisements missed, and body-blocking dips
/// of −10 dB lasting 1–3 s. One ranging per second per beacon, as Core Location delivers them.
struct RadioNoise {
    var sigma = 6.0
    var correlation = 2.0
    var missed = 0.2
    /// Chance per second and beacon that a dip starts.
    var dipRate = 0.03
    var measuredPower = -59
    private var state: UInt64
    private var shadow: [Double]
    private var dipUntil: [Double]

    init(seed: UInt64, beacons: Int) {
        state = seed
        shadow = Array(repeating: 0, count: beacons)
        dipUntil = Array(repeating: -1, count: beacons)
    }

    /// SplitMix64: a uniform number in [0, 1).
    mutating func uniform() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }

    /// A standard normal number (Box–Muller).
    mutating func normal() -> Double {
        let u = max(uniform(), 1e-12), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }

    /// The RSSI the phone reads from `beacon` at `metres` at second `time` (one call per beacon per
    /// second, in time order), or nil when the advertisement is missed.
    mutating func reading(beacon: Int, metres: Double, at time: Double) -> Int? {
        let rho = exp(-1 / correlation)
        shadow[beacon] = rho * shadow[beacon] + (1 - rho * rho).squareRoot() * sigma * normal()
        if time >= dipUntil[beacon], uniform() < dipRate { dipUntil[beacon] = time + 1 + 2 * uniform() }
        let missedNow = uniform() < missed
        if missedNow { return nil }
        let dip = time < dipUntil[beacon] ? -10.0 : 0
        let rssi = Double(measuredPower) - 20 * log10(max(metres, 0.1)) + shadow[beacon] + dip
        return min(-1, max(-100, Int(rssi.rounded())))
    }
}

/// A phone moving among beacons with `RadioNoise`, its readings going through beacon-ingest's
/// engine into region-monitor's, once a second: what the nearest answer was at every second.
struct NoisyPhone {
    let beacons: [(identity: BeaconIdentity, x: Double, y: Double)]
    var noise: RadioNoise
    let ingest: IngestEngine
    let region: RegionEngine
    let deviceId = "phone-1"

    init(beacons: [(identity: BeaconIdentity, x: Double, y: Double)], seed: UInt64, ingest: IngestEngine = IngestEngine(), region: RegionEngine) {
        self.beacons = beacons
        self.ingest = ingest
        noise = RadioNoise(seed: seed, beacons: beacons.count)
        self.region = region
    }

    /// One second at (x, y): every beacon's reading in one report, each sighting handed to region-monitor.
    /// Returns the nearest announcements it caused and the nearest beacon after it.
    mutating func second(_ time: Double, x: Double, y: Double) -> (changes: [NearestBeacon], nearest: BeaconIdentity?) {
        var readings: [RangingReport] = []
        for (i, beacon) in beacons.enumerated() {
            let metres = ((x - beacon.x) * (x - beacon.x) + (y - beacon.y) * (y - beacon.y)).squareRoot()
            if let rssi = noise.reading(beacon: i, metres: metres, at: time) {
                readings.append(RangingReport(uuid: beacon.identity.uuid, major: beacon.identity.major, minor: beacon.identity.minor,
                                              rssi: rssi, measuredPower: noise.measuredPower, timestamp: .at(time)))
            }
        }
        let status = DeviceStatus(deviceId: deviceId, authorization: .whenInUse, foreground: true, precise: true,
                                  monitoringAvailable: true, rangingAvailable: true, changedAt: .at(-3600))
        var changes: [NearestBeacon] = []
        // The report's sightings are valid: a throw here is a broken test.
        let outcome = try! ingest.process(IngestReport(deviceId: deviceId, sightings: readings), known: status, now: .at(time))
        for sighting in outcome.sightings { changes += region.sighting(sighting).nearest }
        changes += region.tick(now: .at(time + 0.5)).nearest
        return (changes, region.nearestBeacon(deviceId: deviceId)?.beacon)
    }
}
