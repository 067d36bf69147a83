import BeaconIngestCore
import Messages
import RegionMonitorCore
import Testing

/// The switching rule (issue 25): a named nearest answer moves to another beacon only when that
/// beacon stays nearer by `--nearest-switch-margin-db` (6) over its own sightings for
/// `--nearest-switch-seconds` (2). Before, the nearest near beacon of the moment won at once, and
/// at two counters 4 m apart radio noise made the café alternate.
@Suite("Region engine: the nearest answer's switching rule")
struct RegionNearestSwitchTests {
    private typealias Fixture = RegionEngineTests
    private static let grill = Fixture.macsGrill, bar = Fixture.coffeeBar

    /// The engine tests' campus with the switching rule's margin and time.
    static func engine(margin: Double = RegionSettings().nearestSwitchMargin, switchTime: Double = RegionSettings().nearestSwitchTime) -> RegionEngine {
        var settings = RegionSettings()
        settings.nearestSwitchMargin = margin
        settings.nearestSwitchTime = switchTime
        let engine = RegionEngine(settings: settings)
        engine.declareBuiltIn("campus")
        for condition in [Fixture.macs, Fixture.coffee] {
            // The conditions are valid: a throw here is a broken test.
            try! engine.add(ConditionSpec(monitor: "campus", identifier: condition.identifier, condition: condition.condition), owner: nil, now: .at(0))
        }
        return engine
    }

    private static func near(_ beacon: BeaconIdentity, _ metres: Double, at seconds: Double) -> Sighting {
        Fixture.sighting(beacon, metres < 0.5 ? .immediate : metres < 4 ? .near : .far, accuracy: metres, at: seconds)
    }

    @Test("the defaults: 6 dB (2 times nearer), 2 s")
    func defaults() {
        #expect(RegionSettings().nearestSwitchMargin == 6 && RegionSettings().nearestSwitchTime == 2)
    }

    @Test("a first answer is named at once; one strong reading of the other café's beacon never switches it")
    func singleStrongReading() {
        let engine = Self.engine()
        #expect(engine.sighting(Self.near(Self.grill, 2, at: 0)).nearest.map(\.beacon) == [Self.grill])
        var changes: [NearestBeacon] = []
        changes += engine.sighting(Self.near(Self.bar, 0.3, at: 1)).nearest
        for second in 1...12 {
            let t = Double(second)
            changes += engine.sighting(Self.near(Self.grill, 2, at: t + 0.5)).nearest
            changes += engine.tick(now: .at(t + 0.6)).nearest
            // Heard again, but no longer ahead by the margin (2 m against 1.5 m is 2.5 dB).
            if second > 3 { changes += engine.sighting(Self.near(Self.bar, 1.5, at: t + 0.7)).nearest }
        }
        #expect(changes.isEmpty)
        #expect(engine.nearestBeacon(deviceId: "phone-1")?.beacon == Self.grill)
    }

    @Test("a beacon ahead by the margin switches once its own sightings kept it so for the switch time, not before; falling back starts over")
    func switchesAfterTime() {
        let engine = Self.engine()
        _ = engine.sighting(Self.near(Self.grill, 3, at: 0))
        // 3 m against 1.4 m: 6.6 dB, ahead by the margin.
        #expect(engine.sighting(Self.near(Self.bar, 1.4, at: 1)).nearest.isEmpty)
        #expect(engine.sighting(Self.near(Self.grill, 3, at: 1.5)).nearest.isEmpty)
        #expect(engine.sighting(Self.near(Self.bar, 1.4, at: 2)).nearest.isEmpty)
        // Within the margin (3 m against 1.6 m: 5.5 dB): the challenge starts over.
        #expect(engine.sighting(Self.near(Self.bar, 1.6, at: 2.5)).nearest.isEmpty)
        #expect(engine.sighting(Self.near(Self.bar, 1.4, at: 3)).nearest.isEmpty)
        #expect(engine.sighting(Self.near(Self.bar, 1.4, at: 4.999)).nearest.isEmpty)
        #expect(engine.tick(now: .at(6)).nearest.isEmpty, "a timer pass adds no sighting of the challenger")
        #expect(engine.sighting(Self.near(Self.bar, 1.4, at: 6)).nearest
                == [NearestBeacon(deviceId: "phone-1", beacon: Self.bar, proximity: .near, date: .at(6))])
    }

    @Test("the margin holds against the answer's own beacon heard far meanwhile; once it is unheard beyond the freshness, the nearest near one suffices")
    func marginAgainstFarOwnBeacon() {
        let engine = Self.engine()
        _ = engine.sighting(Self.near(Self.grill, 1, at: 0))
        var changes: [NearestBeacon] = []
        for second in 1...6 {
            let t = Double(second)
            // A dip: the answer's beacon reads 4.5 m (far), the other 3.8 m (near): 1.5 dB.
            changes += engine.sighting(Self.near(Self.grill, 4.5, at: t)).nearest
            changes += engine.sighting(Self.near(Self.bar, 3.8, at: t)).nearest
        }
        #expect(changes.isEmpty)
        let silent = Self.engine()
        _ = silent.sighting(Self.near(Self.grill, 1, at: 0))
        for second in 1...12 { changes += silent.sighting(Self.near(Self.bar, 3.8, at: Double(second))).nearest }
        // The answer's beacon last heard near at 0: its answer ends at 10, and the nearest near one follows at once.
        #expect(changes.map(\.beacon) == [Self.bar])
        #expect(changes.first?.date == .at(10))
    }

    @Test("a report's sightings at one time never switch twice: no change comes and goes within a report")
    func noFlipWithinReport() {
        let engine = Self.engine()
        _ = engine.sighting(Self.near(Self.grill, 2, at: 0))
        var changes: [NearestBeacon] = []
        for second in 1...30 {
            let t = Double(second), strongBar = second % 2 == 0
            changes += engine.sighting(Self.near(Self.bar, strongBar ? 0.4 : 3, at: t)).nearest
            changes += engine.sighting(Self.near(Self.grill, strongBar ? 3 : 0.4, at: t)).nearest
        }
        #expect(changes.isEmpty)
    }

    @Test("with margin and time 0, the nearest near beacon wins at once, as before")
    func atOnce() {
        let engine = Self.engine(margin: 0, switchTime: 0)
        _ = engine.sighting(Self.near(Self.grill, 2, at: 0))
        #expect(engine.sighting(Self.near(Self.bar, 1.9, at: 1)).nearest.map(\.beacon) == [Self.bar])
    }

    @Test("an answer announced over 24 days ago cannot hold a challenge in its 32-bit offset: the nearer beacon takes over at once")
    func oldAnswer() {
        let engine = Self.engine()
        let days25 = 25 * 86_400.0
        _ = engine.sighting(Self.near(Self.grill, 3, at: 0))
        // Heard near every 9 s for 25 days: the answer stands, announced at 0.
        for second in stride(from: 9.0, through: days25, by: 9) { _ = engine.sighting(Self.near(Self.grill, 3, at: second)) }
        #expect(engine.nearestBeacon(deviceId: "phone-1")?.date == .at(0))
        #expect(engine.sighting(Self.near(Self.grill, 3, at: days25 + 1)).nearest.isEmpty)
        #expect(engine.sighting(Self.near(Self.bar, 1, at: days25 + 2)).nearest.map(\.beacon) == [Self.bar])
    }
}
