import Messages
import RegionMonitorCore
import Testing

/// The evidence rule (issue 25): a café is named only when the evidence says the device is there.
/// While another café's beacon is heard, its beacon's mean RSSI (beacon-ingest's evidence window)
/// must lead every other café's by `--nearest-margin-db` (5) over `--nearest-readings` (25)
/// readings; heard alone, `--nearest-alone-readings` (3) readings name it. Until then the answer
/// carries candidates instead of a beacon. A named café that stops leading falls back to
/// candidates; it switches only to a conclusive leader. The latest smoothed readings putting
/// another café's near beacon `--nearest-moved-db` (8) nearer end a naming.
@Suite("Region engine: the nearest answer's evidence rule")
struct RegionNearestEvidenceTests {
    private typealias Fixture = RegionEngineTests
    static let grill = Fixture.macsGrill, salad = Fixture.macsSalad, bar = Fixture.coffeeBar

    /// The engine tests' campus (Caffè Macs major 1, the coffee station major 2) with `settings`.
    static func engine(_ settings: RegionSettings = RegionSettings()) -> RegionEngine {
        let engine = RegionEngine(settings: settings)
        engine.declareBuiltIn("campus")
        for condition in [Fixture.macs, Fixture.coffee] {
            // The conditions are valid: a throw here is a broken test.
            try! engine.add(ConditionSpec(monitor: "campus", identifier: condition.identifier, condition: condition.condition), owner: nil, now: .at(0))
        }
        return engine
    }

    /// A sighting as beacon-ingest sends it: `mean` dBm over `readings` readings, measured power
    /// −59, near unless said (the smoothed RSSI and accuracy follow the mean).
    static func heard(_ beacon: BeaconIdentity, mean: Double, readings: Int, _ proximity: Proximity = .near, latest: Double? = nil,
                      at seconds: Double) -> Sighting {
        // `latest`: the smoothed RSSI of the last seconds, which the accuracy follows (the mean by default).
        let metres = pow10((-59 - (latest ?? mean)) / 20)
        return Sighting(deviceId: "phone-1", beacon: beacon, rssi: Int(mean.rounded()), measuredPower: -59, accuracy: (metres * 100).rounded() / 100,
                        proximity: proximity, observedAt: .at(seconds), meanRssi: mean, readings: readings)
    }

    private static func pow10(_ x: Double) -> Double {
        var result = 1.0
        // 10^x by exp(x ln 10) without Foundation in the test's hot loop.
        let y = x * 2.302585092994046
        var term = 1.0
        for n in 1...30 {
            term *= y / Double(n)
            result += term
        }
        return result
    }

    @Test("the defaults: 5 dB over 25 readings, 3 readings alone, 8 dB by the latest readings to end a naming")
    func defaults() {
        let settings = RegionSettings()
        #expect(settings.nearestMargin == 5 && settings.nearestReadings == 25 && settings.nearestAloneReadings == 3 && settings.nearestMovedMargin == 8)
    }

    @Test("a café heard alone is a candidate until its beacon's mean is of 3 readings, then named; the lone candidate is answered, not announced")
    func alone() {
        let engine = Self.engine()
        // Not announced: every arriving phone would publish twice.
        #expect(engine.sighting(Self.heard(Self.bar, mean: -62, readings: 1, at: 0)).nearest.isEmpty)
        #expect(engine.nearestCandidates(deviceId: "phone-1", now: .at(0.5)) == [Self.bar])
        #expect(engine.sighting(Self.heard(Self.bar, mean: -63, readings: 2, at: 1)).nearest.isEmpty)
        #expect(engine.nearestBeacon(deviceId: "phone-1") == nil)
        #expect(engine.nearestCandidates(deviceId: "phone-1", now: .at(1.5)) == [Self.bar])
        let named = engine.sighting(Self.heard(Self.bar, mean: -62, readings: 3, at: 2)).nearest
        #expect(named.map(\.beacon) == [Self.bar] && named.first?.candidates == nil)
        #expect(engine.nearestCandidates(deviceId: "phone-1", now: .at(2.5)).isEmpty)
        // The leader's own readings count, not its café's together: two beacons of one café heard
        // once and twice do not name it (a first report that missed the other café's beacon).
        let other = Self.engine()
        _ = other.sighting(Self.heard(Self.grill, mean: -62, readings: 1, at: 0))
        #expect(other.sighting(Self.heard(Self.salad, mean: -64, readings: 2, at: 0.5)).nearest.isEmpty)
        #expect(other.nearestBeacon(deviceId: "phone-1") == nil)
    }

    @Test("with another café heard, the leader is named only when it leads by 5 dB over 25 readings; until then both are candidates, likeliest first")
    func contested() {
        let engine = Self.engine()
        // Two readings: a candidate (alone, three would name it).
        _ = engine.sighting(Self.heard(Self.bar, mean: -66, readings: 2, at: 0))
        let both = engine.sighting(Self.heard(Self.grill, mean: -70, readings: 5, .far, at: 0.1)).nearest
        #expect(both.first?.candidates == [Self.bar, Self.grill], "4 dB apart: either café")
        // Ahead by 6 dB but of 24 readings: not yet, and Caffè Macs is outside the margin.
        _ = engine.sighting(Self.heard(Self.grill, mean: -72, readings: 24, .far, at: 23))
        #expect(engine.sighting(Self.heard(Self.bar, mean: -66, readings: 24, at: 23.1)).nearest.map(\.candidates) == [[Self.bar]])
        #expect(engine.nearestBeacon(deviceId: "phone-1") == nil)
        // 25 readings but 4.9 dB ahead: not named, and Caffè Macs is within the margin again.
        #expect(engine.sighting(Self.heard(Self.bar, mean: -67.1, readings: 25, at: 24)).nearest.map(\.candidates) == [[Self.bar, Self.grill]])
        #expect(engine.nearestBeacon(deviceId: "phone-1") == nil)
        #expect(engine.nearestCandidates(deviceId: "phone-1", now: .at(24)) == [Self.bar, Self.grill])
        // 5 dB over 25 readings: named.
        #expect(engine.sighting(Self.heard(Self.bar, mean: -67, readings: 25, at: 24.5)).nearest.map(\.beacon) == [Self.bar])
    }

    @Test("a far leader never names its café, however far ahead; with nothing near there are no candidates")
    func farNeverNames() {
        let engine = Self.engine()
        #expect(engine.sighting(Self.heard(Self.bar, mean: -60, readings: 30, .far, at: 0)).nearest.isEmpty)
        #expect(engine.nearestBeacon(deviceId: "phone-1") == nil && engine.nearestCandidates(deviceId: "phone-1", now: .at(0)).isEmpty)
        // A near beacon of another café, 20 dB behind the far leader: both cafés are candidates (the
        // leader of the mean, and the one the latest readings put nearest among the near), none named.
        let announced = engine.sighting(Self.heard(Self.grill, mean: -80, readings: 30, at: 1)).nearest
        #expect(announced.map(\.beacon) == [nil] && announced.first?.candidates == [Self.bar, Self.grill])
    }

    @Test("a café whose beacon is near is always a candidate, however far behind the leader its first readings are")
    func nearIsCandidate() {
        let engine = Self.engine()
        // A first report at the coffee bar's counter that caught Caffè Macs' beacon strong and its
        // own weak: 13 dB behind and not the nearest by the latest readings, but near.
        _ = engine.sighting(Self.heard(Self.grill, mean: -62, readings: 2, at: 0))
        let both = engine.sighting(Self.heard(Self.bar, mean: -75, readings: 2, at: 0.1)).nearest
        #expect(both.map(\.beacon) == [nil] && both.first?.candidates == [Self.grill, Self.bar])
        #expect(engine.nearestCandidates(deviceId: "phone-1", now: .at(0.2)) == [Self.grill, Self.bar])
        // A far beacon that far behind is not.
        let other = Self.engine()
        _ = other.sighting(Self.heard(Self.grill, mean: -62, readings: 2, at: 0))
        _ = other.sighting(Self.heard(Self.bar, mean: -75, readings: 2, .far, at: 0.1))
        #expect(other.nearestCandidates(deviceId: "phone-1", now: .at(0.2)) == [Self.grill])
    }

    @Test("a named café stays while it leads; when another leads without the evidence it falls back to candidates, and a conclusive leader is named: never a guess")
    func switching() {
        let engine = Self.engine()
        _ = engine.sighting(Self.heard(Self.grill, mean: -75, readings: 30, .far, at: 0))
        #expect(engine.sighting(Self.heard(Self.bar, mean: -64, readings: 30, at: 0.1)).nearest.map(\.beacon) == [Self.bar])
        // Its lead shrinks but it still leads: nothing changes.
        _ = engine.sighting(Self.heard(Self.grill, mean: -68, readings: 30, .near, at: 5))
        #expect(engine.sighting(Self.heard(Self.bar, mean: -66, readings: 30, at: 5.1)).nearest.isEmpty)
        #expect(engine.nearestBeacon(deviceId: "phone-1")?.beacon == Self.bar)
        // Caffè Macs leads by 1 dB: the coffee station is no longer named, both are candidates.
        let fallback = engine.sighting(Self.heard(Self.grill, mean: -65, readings: 30, at: 10)).nearest
        #expect(fallback.map(\.beacon) == [nil] && fallback.first?.candidates == [Self.grill, Self.bar])
        // Conclusive: named.
        _ = engine.sighting(Self.heard(Self.bar, mean: -74, readings: 30, .far, at: 20))
        #expect(engine.sighting(Self.heard(Self.grill, mean: -64, readings: 30, at: 20.1)).nearest.map(\.beacon) == [Self.grill])
    }

    @Test("the latest readings only take a naming away: another café's near beacon 8 dB nearer by them ends the naming, and none is named while it lasts")
    func contradicted() {
        let engine = Self.engine()
        _ = engine.sighting(Self.heard(Self.grill, mean: -76, readings: 30, .far, at: 0))
        #expect(engine.sighting(Self.heard(Self.bar, mean: -64, readings: 30, at: 0.1)).nearest.map(\.beacon) == [Self.bar])
        // The phone walked to Caffè Macs' counter: its smoothed readings say Caffè Macs, nearer by
        // 9 dB, while the 40 s means still favour the coffee station by 10 dB.
        _ = engine.sighting(Self.heard(Self.bar, mean: -65, readings: 30, latest: -71, at: 5))
        let moved = engine.sighting(Self.heard(Self.grill, mean: -75, readings: 30, .near, latest: -62, at: 5.1)).nearest
        #expect(moved.map(\.beacon) == [nil] && moved.first?.candidates == [Self.bar, Self.grill], "the leader of the mean, then the café it walked to")
        // Still contradicted: the coffee station, conclusive by the mean, is not named again.
        #expect(engine.sighting(Self.heard(Self.bar, mean: -65, readings: 30, latest: -71, at: 6)).nearest.isEmpty)
        #expect(engine.nearestBeacon(deviceId: "phone-1") == nil)
        // The means follow (Caffè Macs leads by 9 dB): named.
        _ = engine.sighting(Self.heard(Self.bar, mean: -73, readings: 30, .far, at: 30))
        #expect(engine.sighting(Self.heard(Self.grill, mean: -64, readings: 30, at: 30.1)).nearest.map(\.beacon) == [Self.grill])
    }

    @Test("another beacon of the named café leading makes it the station named, with no wait: the café does not change")
    func stationWithinCafe() {
        let engine = Self.engine()
        #expect(engine.sighting(Self.heard(Self.grill, mean: -65, readings: 3, at: 0)).nearest.map(\.beacon) == [Self.grill])
        #expect(engine.sighting(Self.heard(Self.salad, mean: -60, readings: 1, at: 1)).nearest.map(\.beacon) == [Self.salad])
    }

    @Test("candidates are announced when the set of cafés changes, not when their order does; they end with the last near sighting's freshness")
    func candidateAnnouncements() {
        let engine = Self.engine()
        _ = engine.sighting(Self.heard(Self.bar, mean: -66, readings: 2, at: 0))
        #expect(engine.sighting(Self.heard(Self.grill, mean: -68, readings: 5, at: 0.1)).nearest.count == 1)
        // The other café now leads by 2 dB: the same two cafés, no announcement.
        #expect(engine.sighting(Self.heard(Self.grill, mean: -64, readings: 6, at: 1)).nearest.isEmpty)
        #expect(engine.nearestCandidates(deviceId: "phone-1", now: .at(1)) == [Self.grill, Self.bar])
        // Nothing heard for the freshness (10 s): the candidates end, announced once.
        let ended = engine.tick(now: .at(12)).nearest
        #expect(ended.map(\.beacon) == [nil] && ended.first?.candidates == nil)
        #expect(engine.tick(now: .at(13)).nearest.isEmpty)
    }

    @Test("sightings without evidence count one reading each, at the level their accuracy gives")
    func withoutEvidence() {
        let engine = Self.engine()
        var changes: [NearestBeacon] = []
        for second in 0..<2 { changes += engine.sighting(Fixture.sighting(Self.bar, .near, accuracy: 1, readings: nil, at: Double(second))).nearest }
        #expect(changes.isEmpty && engine.nearestBeacon(deviceId: "phone-1") == nil)
        // The third sighting of the beacon: three readings, named.
        #expect(engine.sighting(Fixture.sighting(Self.bar, .near, accuracy: 1, readings: nil, at: 2)).nearest.map(\.beacon) == [Self.bar])
        var settings = RegionSettings()
        settings.nearestAloneReadings = 1
        let atOnce = Self.engine(settings)
        #expect(atOnce.sighting(Fixture.sighting(Self.bar, .near, accuracy: 1, readings: nil, at: 0)).nearest.map(\.beacon) == [Self.bar])
    }
}
