import Messages
import RegionMonitorCore
import Testing

/// The nearest answer's freshness (issue 25): it ends `--nearest-freshness-seconds` (10) after
/// its beacon's last near/immediate sighting, fired by the timer, and the nearest of the beacons
/// still heard near within the freshness (or none) follows. Before, it lasted until the beacon's
/// café went silent: the exit timeout, 30 s after the last sighting at any distance.
@Suite("Region engine: the nearest answer's freshness")
struct RegionNearestFreshnessTests {
    /// The engine tests' campus: Caffè Macs (major 1) and the coffee station (major 2), exit 30 s, freshness 10 s.
    private typealias Fixture = RegionEngineTests

    @Test("the nearest answer ends one freshness after the last near sighting, not at the exit, however long the beacon is still heard far")
    func nearestEndsAtFreshness() {
        let engine = Fixture.engine()
        _ = engine.sighting(Fixture.sighting(Fixture.macsGrill, .near, at: 0))
        var changes: [NearestBeacon] = []
        for second in 1...40 {
            // The timer, not the next sighting, ends it: it runs first here.
            changes += engine.tick(now: .at(Double(second) - 0.001)).nearest
            changes += engine.tick(now: .at(Double(second))).nearest
            if second == 10 { #expect(engine.nearestBeacon(deviceId: "phone-1") == nil, "nearest.get agrees as soon as it is announced") }
            if second <= 35 { changes += engine.sighting(Fixture.sighting(Fixture.macsGrill, .far, at: Double(second))).nearest }
        }
        #expect(changes == [NearestBeacon(deviceId: "phone-1", beacon: nil, proximity: nil, date: .at(10))])
        // The beacon condition itself still exits one exit timeout after the last far sighting.
        #expect(engine.record(deviceId: "phone-1", identifier: "macs")?.state == .satisfied)
        #expect(engine.tick(now: .at(65)).events.map(\.state) == [.unsatisfied])
    }

    @Test("the nearest answer is cleared when its café goes silent one freshness after the last near sighting, exactly then")
    func nearestClearedWhenSilent() {
        let engine = Fixture.engine()
        _ = engine.sighting(Fixture.sighting(Fixture.macsGrill, .near, at: 0))
        #expect(engine.tick(now: .at(9.999)).nearest.isEmpty)
        #expect(engine.nearestBeacon(deviceId: "phone-1")?.beacon == Fixture.macsGrill)
        #expect(engine.tick(now: .at(10)).nearest == [NearestBeacon(deviceId: "phone-1", beacon: nil, proximity: nil, date: .at(10))])
        #expect(engine.nearestBeacon(deviceId: "phone-1") == nil)
        #expect(engine.tick(now: .at(31)).nearest.isEmpty)
        #expect(engine.trackedDevices == 1) // the unsatisfied record stays
    }

    @Test("a device back after a quiet spell longer than the freshness has its new answer cleared one freshness after, not at the exit timeout")
    func clearedAgainAfterQuietSpell() throws {
        // The bench's campus: a 600 s exit keeps heard beacons 600 s, and a device quiet past the
        // freshness was put off until then; heard again, its answer must end on time all the same.
        let macs = BeaconCondition(identifier: "macs", uuid: campusUUID, major: 1, exitTimeout: 600)
        let engine = try RegionEngine(monitor: "campus", conditions: [macs])
        _ = engine.sighting(Fixture.sighting(Fixture.macsGrill, .near, at: 0))
        #expect(engine.tick(now: .at(10)).nearest == [NearestBeacon(deviceId: "phone-1", beacon: nil, proximity: nil, date: .at(10))])
        #expect(engine.sighting(Fixture.sighting(Fixture.macsGrill, .near, at: 20)).nearest.map(\.beacon) == [Fixture.macsGrill])
        #expect(engine.tick(now: .at(29.999)).nearest.isEmpty)
        #expect(engine.tick(now: .at(30.5)).nearest == [NearestBeacon(deviceId: "phone-1", beacon: nil, proximity: nil, date: .at(30))])
        #expect(engine.nearestBeacon(deviceId: "phone-1") == nil)
    }

    @Test("devices due only to be put back on the timer do not count against a pass's limit: the answer that ends is cleared in the same pass")
    func checksDoNotCrowdOutClearings() {
        let engine = Fixture.engine()
        // 100 phones named at 0 and heard near again at 5: each is due at 10 (its old deadline)
        // only to be put back, its answer lasting to 15. phone-quiet, named at 0.5, is not heard again.
        for i in 0..<100 { _ = engine.sighting(Fixture.sighting(Fixture.macsGrill, .near, device: "phone-\(i)", at: 0)) }
        _ = engine.sighting(Fixture.sighting(Fixture.macsGrill, .near, device: "phone-quiet", at: 0.5))
        for i in 0..<100 { _ = engine.sighting(Fixture.sighting(Fixture.macsGrill, .near, device: "phone-\(i)", at: 5)) }
        let cleared = NearestBeacon(deviceId: "phone-quiet", beacon: nil, proximity: nil, date: .at(10.5))
        #expect(engine.tick(now: .at(10.5), limit: 1, checks: 1_000).nearest == [cleared], "one pass: 100 checks and the one clearing")
        #expect(!engine.isBehind(now: .at(10.5)))
        // A pass that may look at fewer devices than are due leaves the rest for the next one.
        let other = Fixture.engine()
        for i in 0..<100 { _ = other.sighting(Fixture.sighting(Fixture.macsGrill, .near, device: "phone-\(i)", at: 0)) }
        _ = other.sighting(Fixture.sighting(Fixture.macsGrill, .near, device: "phone-quiet", at: 0.5))
        for i in 0..<100 { _ = other.sighting(Fixture.sighting(Fixture.macsGrill, .near, device: "phone-\(i)", at: 5)) }
        #expect(other.tick(now: .at(10.5), limit: 1, checks: 50).nearest.isEmpty)
        #expect(other.isBehind(now: .at(10.5)))
        #expect(other.tick(now: .at(10.5), limit: 1, checks: 51).nearest == [cleared])
    }

    @Test("an answer that ended while the timer was behind is dated when it ended, whether a late tick or a sighting finds it")
    func endedAnswerDatedWhenItEnded() {
        let engine = Fixture.engine()
        _ = engine.sighting(Fixture.sighting(Fixture.macsGrill, .near, at: 0))
        _ = engine.sighting(Fixture.sighting(Fixture.macsGrill, .near, device: "phone-2", at: 0))
        #expect(engine.tick(now: .at(13.5)).nearest == [NearestBeacon(deviceId: "phone-1", beacon: nil, proximity: nil, date: .at(10)),
                                                        NearestBeacon(deviceId: "phone-2", beacon: nil, proximity: nil, date: .at(10))])
        let engine2 = Fixture.engine()
        _ = engine2.sighting(Fixture.sighting(Fixture.macsGrill, .near, at: 0))
        #expect(engine2.sighting(Fixture.sighting(Fixture.macsGrill, .far, at: 12)).nearest
                == [NearestBeacon(deviceId: "phone-1", beacon: nil, proximity: nil, date: .at(10))])
    }

    @Test("a near or immediate sighting refreshes the answer: it ends one freshness after the last one")
    func nearSightingRefreshes() {
        let engine = Fixture.engine()
        _ = engine.sighting(Fixture.sighting(Fixture.macsGrill, .near, at: 0))
        _ = engine.sighting(Fixture.sighting(Fixture.macsGrill, .far, at: 4))
        #expect(engine.sighting(Fixture.sighting(Fixture.macsGrill, .immediate, at: 8)).nearest.isEmpty)
        _ = engine.sighting(Fixture.sighting(Fixture.macsGrill, .far, at: 9))
        #expect(engine.tick(now: .at(10)).nearest.isEmpty, "refreshed at 8")
        #expect(engine.tick(now: .at(17.999)).nearest.isEmpty)
        #expect(engine.tick(now: .at(18)).nearest == [NearestBeacon(deviceId: "phone-1", beacon: nil, proximity: nil, date: .at(18))])
    }

    @Test("two near beacons: when the nearer one goes stale the other, still fresh, takes over, and ends at its own freshness")
    func fresherTakesOver() {
        let engine = Fixture.engine()
        _ = engine.sighting(Fixture.sighting(Fixture.macsSalad, .immediate, at: 0))
        _ = engine.sighting(Fixture.sighting(Fixture.coffeeBar, .near, at: 0))
        #expect(engine.nearestBeacon(deviceId: "phone-1")?.beacon == Fixture.macsSalad)
        var changes: [NearestBeacon] = []
        for second in 1...20 {
            // The salad bar is heard only far from now on; the coffee bar near until 6.
            changes += engine.sighting(Fixture.sighting(Fixture.macsSalad, .far, at: Double(second))).nearest
            if second <= 6 { changes += engine.sighting(Fixture.sighting(Fixture.coffeeBar, .near, at: Double(second))).nearest }
            changes += engine.tick(now: .at(Double(second))).nearest
        }
        // The coffee bar (2 m), ahead of the salad bar's far readings (12 m) by 15.6 dB over 30
        // readings, is named at once: at 1. Its answer ends one freshness after its last near one.
        #expect(changes == [NearestBeacon(deviceId: "phone-1", beacon: Fixture.coffeeBar, proximity: .near, date: .at(1)),
                            NearestBeacon(deviceId: "phone-1", beacon: nil, proximity: nil, date: .at(16))])
    }

    @Test("two near beacons: the answer's beacon goes silent, and the other one, heard near more recently, takes over at its freshness")
    func nextFreshestTakesOverWhenStale() {
        let engine = Fixture.engine()
        _ = engine.sighting(Fixture.sighting(Fixture.macsSalad, .immediate, at: 0))
        _ = engine.sighting(Fixture.sighting(Fixture.coffeeBar, .near, at: 3))
        #expect(engine.tick(now: .at(9.999)).nearest.isEmpty)
        #expect(engine.tick(now: .at(10)).nearest == [NearestBeacon(deviceId: "phone-1", beacon: Fixture.coffeeBar, proximity: .near, date: .at(10))])
        #expect(engine.nearestBeacon(deviceId: "phone-1")?.beacon == Fixture.coffeeBar)
        #expect(engine.tick(now: .at(13)).nearest == [NearestBeacon(deviceId: "phone-1", beacon: nil, proximity: nil, date: .at(13))])
    }
}

@Test("a nearest answer restored after a restart counts as heard near at the restart: it ends one freshness later unless heard near again",
      arguments: [false, true])
func restoredNearestEndsAtFreshness(heardNear: Bool) throws {
    let start = Timestamp(milliseconds: 1_700_000_000_000)
    let uuid = "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"
    let engine = try RegionEngine(monitor: "campus", conditions: [BeaconCondition(identifier: "macs", uuid: uuid, major: 1, exitTimeout: 30)])
    let beacon = BeaconIdentity(uuid: uuid, major: 1, minor: 2)
    engine.restoreNearest(NearestBeacon(deviceId: "d", beacon: beacon, proximity: .near, date: start.adding(seconds: -100)), now: start)
    func sighting(_ proximity: Proximity, at seconds: Double) -> Sighting {
        Sighting(deviceId: "d", beacon: beacon, rssi: -70, measuredPower: -59, accuracy: proximity == .near ? 2 : 12, proximity: proximity,
                 observedAt: start.adding(seconds: seconds))
    }
    // Heard only far after the restart (or near once, at 5 s).
    #expect(engine.sighting(sighting(heardNear ? .near : .far, at: 5)).nearest.isEmpty)
    _ = engine.sighting(sighting(.far, at: 6))
    let ends = heardNear ? 15.0 : 10.0
    #expect(engine.tick(now: start.adding(seconds: ends - 0.001)).nearest.isEmpty)
    #expect(engine.nearestBeacon(deviceId: "d")?.beacon == beacon)
    let cleared = engine.tick(now: start.adding(seconds: ends)).nearest
    #expect(cleared == [NearestBeacon(deviceId: "d", beacon: nil, proximity: nil, date: start.adding(seconds: ends))])
    #expect(engine.nearestBeacon(deviceId: "d") == nil)
}
