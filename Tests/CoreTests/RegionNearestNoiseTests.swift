import BeaconIngestCore
import Messages
import RegionMonitorCore
import Testing

/// The nearest answer under seeded radio noise (`Campus.RadioNoise`: σ 6 dB correlated over 2 s, 20%
/// missed, −10 dB dips of 1–3 s), through beacon-ingest's engine into region-monitor's, with
/// injected time: Caffè Macs' grill beacon and the coffee station's 4 m apart.
@Suite("Region engine: the nearest answer under radio noise")
struct RegionNearestNoiseTests {
    private typealias Evidence = RegionNearestEvidenceTests
    static let beacons = [(identity: RegionEngineTests.macsGrill, x: 0.0, y: 0.0), (identity: RegionEngineTests.coffeeBar, x: 4.0, y: 0.0)]

    /// What a phone named over `minutes` of standing 1 m in front of beacon `counter`, having
    /// walked up to it from 12 m: changes of the named café and seconds a wrong café was named.
    static func standing(at counter: Int, seed: UInt64, minutes: Double, engine: RegionEngine) -> (changes: Int, wrong: Int) {
        var phone = NoisyPhone(beacons: beacons, seed: seed, region: engine)
        var last: BeaconIdentity?, changes = 0, wrong = 0
        for second in 0..<Int(11 + minutes * 60) {
            let t = Double(second)
            let (announced, nearest) = phone.second(t, x: beacons[counter].x, y: max(1, 12 - t))
            for change in announced where change.beacon != nil {
                if let last, last != change.beacon { changes += 1 }
                last = change.beacon
            }
            if let nearest, nearest != beacons[counter].identity { wrong += 1 }
        }
        return (changes, wrong)
    }

    @Test("standing at either counter for 10 minutes, 20 phones each: no wrong café named, no alternation; naming on any lead alternates")
    func standingNeverWrong() {
        var hasty = RegionSettings()
        hasty.nearestMargin = 0
        hasty.nearestReadings = 1
        hasty.nearestAloneReadings = 1
        var anyLead = (changes: 0, wrong: 0), evidence = (changes: 0, wrong: 0)
        for counter in 0...1 {
            for seed in UInt64(1)...20 {
                let seed = seed &* 7919 &+ UInt64(counter)
                let a = Self.standing(at: counter, seed: seed, minutes: 10, engine: Evidence.engine(hasty))
                let b = Self.standing(at: counter, seed: seed, minutes: 10, engine: Evidence.engine())
                anyLead = (anyLead.changes + a.changes, anyLead.wrong + a.wrong)
                evidence = (evidence.changes + b.changes, evidence.wrong + b.wrong)
            }
        }
        #expect(anyLead.changes + anyLead.wrong > 0, "the noise makes a rule without a margin name the other café")
        #expect(evidence.changes == 0 && evidence.wrong == 0, "with the evidence rule: \(evidence.changes) changes, \(evidence.wrong) seconds wrong")
    }

    @Test("a walk from one counter to the other names the second café once, never back", arguments: UInt64(1)...10)
    func walkSwitchesOnce(seed: UInt64) {
        var phone = NoisyPhone(beacons: Self.beacons, seed: seed, region: Evidence.engine())
        var named: [BeaconIdentity] = []
        for second in 0..<160 {
            let t = Double(second)
            // At the grill counter for a minute, 4 s along the counters, at the coffee bar for 85 s.
            let x = t < 70 ? 0 : min(4, t - 70)
            let (changes, nearest) = phone.second(t, x: x, y: max(1, 12 - t))
            if second == 60 { #expect(nearest == Self.beacons[0].identity) }
            if second > 60 { named += changes.compactMap(\.beacon) }
        }
        #expect(named == [Self.beacons[1].identity])
    }
}
