import BeaconIngestCore
import Messages
import RegionMonitorCore
import Testing

/// The nearest answer under seeded radio noise (`Campus.RadioNoise`: σ 6 dB correlated over 2 s, 20%
/// missed, −10 dB dips of 1–3 s), through beacon-ingest's engine into region-monitor's, with
/// injected time: Caffè Macs' grill beacon and the coffee station's 4 m apart.
@Suite("Region engine: the nearest answer under radio noise")
struct RegionNearestNoiseTests {
    private typealias Switching = RegionNearestSwitchTests
    static let beacons = [(identity: RegionEngineTests.macsGrill, x: 0.0, y: 0.0), (identity: RegionEngineTests.coffeeBar, x: 4.0, y: 0.0)]

    /// Changes of the named café after the phone, walking up from 12 m, stood 1 m in front of
    /// beacon `counter` for 3 s, over `minutes` of standing there.
    static func alternations(at counter: Int, seed: UInt64, minutes: Double, engine: RegionEngine) -> Int {
        var phone = NoisyPhone(beacons: beacons, seed: seed, region: engine)
        var last: BeaconIdentity?, changes = 0
        for second in 0..<Int(11 + minutes * 60) {
            let t = Double(second)
            for change in phone.second(t, x: beacons[counter].x, y: max(1, 12 - t)).changes where change.beacon != nil {
                if let last, last != change.beacon, t >= 13 { changes += 1 }
                last = change.beacon
            }
        }
        return changes
    }

    @Test("standing at either counter for 10 minutes, 20 phones each: the switching rule cuts the alternations at least tenfold")
    func standingAlternatesLess() {
        var atOnce = 0, switching = 0
        for counter in 0...1 {
            for seed in UInt64(1)...20 {
                let seed = seed &* 7919 &+ UInt64(counter)
                atOnce += Self.alternations(at: counter, seed: seed, minutes: 10, engine: Switching.engine(margin: 0, switchTime: 0))
                switching += Self.alternations(at: counter, seed: seed, minutes: 10, engine: Switching.engine())
            }
        }
        #expect(atOnce >= 100, "the noise makes the café alternate without the rule")
        #expect(switching * 10 <= atOnce, "\(switching) alternations with the rule, \(atOnce) without")
    }

    @Test("a walk from one counter to the other switches once", arguments: UInt64(1)...10)
    func walkSwitchesOnce(seed: UInt64) {
        var phone = NoisyPhone(beacons: Self.beacons, seed: seed, region: Switching.engine())
        var named: [BeaconIdentity?] = []
        for second in 0..<150 {
            let t = Double(second)
            // At the grill counter for a minute, 4 s along the counters, at the coffee bar for a minute.
            let x = t < 70 ? 0 : min(4, t - 70)
            let (changes, nearest) = phone.second(t, x: x, y: max(1, 12 - t))
            if second == 40 { #expect(nearest == Self.beacons[0].identity) }
            if second > 40 { named += changes.map(\.beacon) }
        }
        // (The first answer, named at once on the way in, may still be the other café: a dwell
        // before the first naming is not part of this rule.)
        #expect(named == [Self.beacons[1].identity])
    }
}
