import BeaconIngestCore
import Campus
import Foundation
import Messages
import RegionMonitorCore

/// Issue 25's indoor radio (`Campus.RadioNoise`, the model `load-test truth` uses) on one link per
/// beacon, seeded: one ranging per second per beacon, as Core Location delivers them.
struct NoisyLinks {
    var noise = RadioNoise()
    var measuredPower = -59
    private var random: SeededRandom
    private var links: [RadioLink]

    init(seed: UInt64, beacons: Int) {
        random = SeededRandom(seed: seed)
        var links: [RadioLink] = []
        for _ in 0..<beacons { links.append(RadioLink(noise: noise, random: &random)) }
        self.links = links
    }

    /// The RSSI the phone reads from `beacon` at `metres` one second after the last call for it, or
    /// nil when the advertisement is missed.
    mutating func reading(beacon: Int, metres: Double) -> Int? {
        links[beacon].sample(noise: noise, metres: metres, measuredPower: Double(measuredPower), step: 1, random: &random)
    }
}

/// A phone moving among beacons with `NoisyLinks`, its readings going through beacon-ingest's
/// engine into region-monitor's, once a second: what the nearest answer was at every second.
struct NoisyPhone {
    let beacons: [(identity: BeaconIdentity, x: Double, y: Double)]
    var noise: NoisyLinks
    let ingest: IngestEngine
    let region: RegionEngine
    let deviceId = "phone-1"

    init(beacons: [(identity: BeaconIdentity, x: Double, y: Double)], seed: UInt64, ingest: IngestEngine = IngestEngine(), region: RegionEngine) {
        self.beacons = beacons
        self.ingest = ingest
        noise = NoisyLinks(seed: seed, beacons: beacons.count)
        self.region = region
    }

    /// One second at (x, y): every beacon's reading in one report, each sighting handed to region-monitor.
    /// Returns the nearest announcements it caused and the nearest beacon after it.
    mutating func second(_ time: Double, x: Double, y: Double) -> (changes: [NearestBeacon], nearest: BeaconIdentity?) {
        var readings: [RangingReport] = []
        for (i, beacon) in beacons.enumerated() {
            let metres = ((x - beacon.x) * (x - beacon.x) + (y - beacon.y) * (y - beacon.y)).squareRoot()
            if let rssi = noise.reading(beacon: i, metres: metres) {
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
