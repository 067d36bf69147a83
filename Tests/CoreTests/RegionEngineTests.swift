import Foundation
import Messages
import RegionMonitorCore
import Testing

@Suite("Region engine: beacon conditions, exits, nearest beacon")
struct RegionEngineTests {
    static let exitTimeout = 30.0
    static let macs = BeaconCondition(identifier: "macs", uuid: campusUUID, major: 1, exitTimeout: exitTimeout)
    static let coffee = BeaconCondition(identifier: "coffee", uuid: campusUUID, major: 2, exitTimeout: exitTimeout)

    /// Caffè Macs salad bar (major 1, minor 2) and the coffee station (major 2, minor 1):
    /// major and minor differ, so a mixed-up field shows.
    static let macsSalad = BeaconIdentity(uuid: campusUUID, major: 1, minor: 2)
    static let macsGrill = BeaconIdentity(uuid: campusUUID, major: 1, minor: 1)
    static let coffeeBar = BeaconIdentity(uuid: campusUUID, major: 2, minor: 1)

    static func engine(_ conditions: [BeaconCondition] = [macs, coffee]) -> RegionEngine {
        // The conditions are valid: a throw here is a broken test.
        try! RegionEngine(monitor: "campus", conditions: conditions)
    }

    /// A sighting as beacon-ingest sends it for a phone that has heard the beacon for a while:
    /// its evidence is the mean RSSI the accuracy gives (measured power −59), of `readings`
    /// readings (30 by default: enough to name a café over another 5 dB behind). `readings` nil
    /// sends none, as a sender that keeps no evidence.
    static func sighting(_ beacon: BeaconIdentity, _ proximity: Proximity = .far, accuracy: Double? = nil, device: String = "phone-1",
                         readings: Int? = 30, at seconds: Double) -> Sighting {
        let typical: Double = switch proximity {
        case .immediate: 0.3
        case .near: 2
        case .far: 12
        case .unknown: -1
        }
        let metres = accuracy ?? typical
        let mean = readings != nil && metres > 0 ? ((-59 - 20 * log10(metres)) * 10).rounded() / 10 : nil
        return Sighting(deviceId: device, beacon: beacon, rssi: -70, measuredPower: -59, accuracy: metres, proximity: proximity,
                        observedAt: .at(seconds), meanRssi: mean, readings: mean == nil ? nil : readings)
    }

    // MARK: Enter and exit

    @Test("the first matching sighting announces satisfied once, refined to the concrete beacon")
    func firstSightingSatisfies() throws {
        let engine = Self.engine()
        let effects = engine.sighting(Self.sighting(Self.macsSalad, at: 0))
        #expect(effects.events == [RegionEvent(monitor: "campus", identifier: "macs", deviceId: "phone-1", state: .satisfied,
                                               refinement: Self.macsSalad, flags: [], date: t0)])
        let refinement = try #require(effects.events.first?.refinement)
        #expect(refinement.uuid == campusUUID)
        #expect(refinement.major == 1)
        #expect(refinement.minor == 2)

        let record = try #require(engine.record(deviceId: "phone-1", identifier: "macs"))
        #expect(record.state == .satisfied)
        #expect(record.refinement == Self.macsSalad)
        #expect(record.lastEvent == effects.events.first)
        #expect(engine.record(deviceId: "phone-1", identifier: "coffee") == nil)
    }

    @Test("repeated sightings announce nothing more")
    func repeatedSightingsAreQuiet() {
        let engine = Self.engine()
        _ = engine.sighting(Self.sighting(Self.macsSalad, at: 0))
        for second in 1...20 {
            #expect(engine.sighting(Self.sighting(second.isMultiple(of: 2) ? Self.macsSalad : Self.macsGrill, at: Double(second))).events.isEmpty)
        }
    }

    @Test("a mass exit is spread over limited passes: each handles at most its limit, every exit comes once, dated when it fell due")
    func limitedPasses() throws {
        let engine = Self.engine()
        for device in 0..<45 { _ = engine.sighting(Self.sighting(Self.macsSalad, device: "phone-\(device)", at: Double(device) / 100)) }
        #expect(engine.tick(now: .at(29), limit: 20).events.isEmpty)
        var exits: [RegionEvent] = []
        var passes = 0
        // Long after every timeout: the passes come late, the dates do not.
        while engine.isBehind(now: .at(100)) {
            let events = engine.tick(now: .at(100), limit: 20).events
            #expect(events.count <= 20)
            exits += events
            passes += 1
        }
        #expect(passes == 3)
        #expect(exits.count == 45)
        #expect(Set(exits.map(\.deviceId)).count == 45)
        for event in exits {
            let device = try #require(Int(event.deviceId.dropFirst("phone-".count)))
            #expect(event.state == .unsatisfied)
            #expect(event.date == .at(Double(device) / 100 + Self.exitTimeout))
        }
        #expect(engine.tick(now: .at(100), limit: 20).events.isEmpty)
    }

    @Test("exit: nothing before the timeout, one unsatisfied event at it, refinement cleared")
    func exitAfterTimeout() throws {
        let engine = Self.engine()
        _ = engine.sighting(Self.sighting(Self.macsSalad, at: 0))
        _ = engine.sighting(Self.sighting(Self.macsSalad, at: 5))
        // The timeout counts from the last matching sighting.
        #expect(engine.tick(now: .at(5 + 29.999)).events.isEmpty)
        let effects = engine.tick(now: .at(35))
        #expect(effects.events == [RegionEvent(monitor: "campus", identifier: "macs", deviceId: "phone-1", state: .unsatisfied,
                                               refinement: nil, flags: [], date: .at(35))])
        let record = try #require(engine.record(deviceId: "phone-1", identifier: "macs"))
        #expect(record.state == .unsatisfied)
        #expect(record.refinement == nil)
        #expect(record.lastEvent?.state == .unsatisfied)
        #expect(engine.tick(now: .at(36)).events.isEmpty)
        #expect(engine.tick(now: .at(3600)).events.isEmpty)
    }

    @Test("a tick long after the timeout still announces exactly one exit")
    func lateTick() {
        let engine = Self.engine()
        _ = engine.sighting(Self.sighting(Self.macsSalad, at: 0))
        #expect(engine.tick(now: .at(500)).events.map(\.state) == [.unsatisfied])
        #expect(engine.tick(now: .at(501)).events.isEmpty)
    }

    @Test("back after an exit: satisfied again, refined to the beacon seen now")
    func reentry() {
        let engine = Self.engine()
        _ = engine.sighting(Self.sighting(Self.macsSalad, at: 0))
        _ = engine.tick(now: .at(30))
        let effects = engine.sighting(Self.sighting(Self.macsGrill, at: 40))
        #expect(effects.events.map(\.state) == [.satisfied])
        #expect(effects.events.map(\.refinement) == [Self.macsGrill])
    }

    // MARK: Matching

    @Test("wildcard conditions: omitted values match anything", arguments: [
        // condition (major, minor), beacon (uuid, major, minor), matches
        (nil, nil, campusUUID, 1, 2, true),
        (nil, nil, campusUUID, 7, 9, true),
        (1, nil, campusUUID, 1, 2, true),
        (1, nil, campusUUID, 1, 300, true),
        (1, nil, campusUUID, 2, 1, false),
        (1, 2, campusUUID, 1, 2, true),
        (1, 2, campusUUID, 2, 1, false),
        (1, 2, campusUUID, 1, 1, false),
        (nil, nil, "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", 1, 2, false),
        (1, nil, "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", 1, 2, false),
    ] as [(Int?, Int?, String, Int, Int, Bool)])
    func wildcards(major: Int?, minor: Int?, uuid: String, beaconMajor: Int, beaconMinor: Int, matches: Bool) {
        let condition = BeaconCondition(identifier: "c", uuid: campusUUID, major: major, minor: minor, exitTimeout: 30)
        let beacon = BeaconIdentity(uuid: uuid, major: beaconMajor, minor: beaconMinor)
        let engine = Self.engine([condition])
        let effects = engine.sighting(Self.sighting(beacon, at: 0))
        #expect(effects.events.count == (matches ? 1 : 0))
        #expect(effects.events.first?.refinement == (matches ? beacon : nil))
        #expect((engine.record(deviceId: "phone-1", identifier: "c") != nil) == matches)
    }

    @Test("a condition's UUID is canonicalised to upper case")
    func conditionUUIDCanonical() {
        let condition = BeaconCondition(identifier: "c", uuid: campusUUID.lowercased(), exitTimeout: 30)
        #expect(condition.uuid == campusUUID)
        #expect(condition.condition == .beacon(uuid: campusUUID, major: nil, minor: nil, exitTimeout: 30))
        #expect(Self.engine([condition]).sighting(Self.sighting(Self.macsSalad, at: 0)).events.map(\.identifier) == ["c"])
    }

    @Test("one sighting satisfies every matching condition, in the order they were added")
    func severalConditions() {
        let campus = BeaconCondition(identifier: "campus", uuid: campusUUID, exitTimeout: 30)
        let salad = BeaconCondition(identifier: "salad", uuid: campusUUID, major: 1, minor: 2, exitTimeout: 30)
        let engine = Self.engine([Self.macs, campus, Self.coffee, salad])
        let effects = engine.sighting(Self.sighting(Self.macsSalad, at: 0))
        #expect(effects.events.map(\.identifier) == ["macs", "campus", "salad"])
        #expect(effects.events.allSatisfy { $0.refinement == Self.macsSalad && $0.state == .satisfied })
    }

    @Test("records are per device")
    func perDevice() {
        let engine = Self.engine()
        #expect(engine.sighting(Self.sighting(Self.macsSalad, device: "a", at: 0)).events.map(\.deviceId) == ["a"])
        #expect(engine.sighting(Self.sighting(Self.macsSalad, device: "b", at: 10)).events.map(\.deviceId) == ["b"])
        #expect(engine.tick(now: .at(30)).events.map(\.deviceId) == ["a"])
        #expect(engine.tick(now: .at(40)).events.map(\.deviceId) == ["b"])
    }

    @Test("exits due in the same tick come out in a stable order: device, then condition as added")
    func exitOrderIsDeterministic() {
        let conditions = (0..<6).map { BeaconCondition(identifier: "c\($0)", uuid: campusUUID, major: 1, exitTimeout: 30) }
        let engine = Self.engine(conditions)
        let devices = (10..<22).map { "phone-\($0)" }
        for device in devices.reversed() { _ = engine.sighting(Self.sighting(Self.macsSalad, device: device, at: 0)) }
        let events = engine.tick(now: .at(30)).events
        let expected = devices.flatMap { device in conditions.map { "\(device)/\($0.identifier)" } }
        #expect(events.map { "\($0.deviceId)/\($0.identifier)" } == expected)
    }

    // MARK: Nearest beacon

    @Test("a near beacon becomes the nearest; a closer one of the same café names its station at once; one of another café needs the evidence rule")
    func nearestNearAndCloser() {
        let engine = Self.engine()
        let first = engine.sighting(Self.sighting(Self.macsGrill, .near, accuracy: 3, at: 0))
        #expect(first.nearest == [NearestBeacon(deviceId: "phone-1", beacon: Self.macsGrill, proximity: .near, date: t0)])
        #expect(engine.nearestBeacon(deviceId: "phone-1")?.beacon == Self.macsGrill)

        // The same beacon again, even nearer: no change to announce.
        #expect(engine.sighting(Self.sighting(Self.macsGrill, .near, accuracy: 2.5, at: 1)).nearest.isEmpty)

        // A closer beacon of the same café: the café does not change, so its station is named at once.
        let closer = engine.sighting(Self.sighting(Self.macsSalad, .immediate, accuracy: 0.4, at: 2))
        #expect(closer.nearest == [NearestBeacon(deviceId: "phone-1", beacon: Self.macsSalad, proximity: .immediate, date: .at(2))])

        // A farther near beacon does not take it back.
        #expect(engine.sighting(Self.sighting(Self.macsGrill, .near, accuracy: 2, at: 5)).nearest.isEmpty)
        #expect(engine.nearestBeacon(deviceId: "phone-1")?.beacon == Self.macsSalad)
    }

    @Test("far and unknown beacons never choose a place", arguments: [Proximity.far, .unknown])
    func farNeverChooses(proximity: Proximity) {
        let engine = Self.engine()
        #expect(engine.sighting(Self.sighting(Self.macsGrill, proximity, at: 0)).nearest.isEmpty)
        #expect(engine.nearestBeacon(deviceId: "phone-1") == nil)
    }

    @Test("a far beacon of another café never switches the café: the answer stands until it ends, then is none")
    func farOtherCafeDoesNotSwitch() {
        let engine = Self.engine()
        _ = engine.sighting(Self.sighting(Self.macsGrill, .near, at: 0))
        var changes: [NearestBeacon] = []
        for second in 1...25 {
            changes += engine.sighting(Self.sighting(Self.coffeeBar, .far, accuracy: 8, at: Double(second))).nearest
            if second.isMultiple(of: 5) {
                changes += engine.sighting(Self.sighting(Self.macsGrill, .far, accuracy: 9, at: Double(second))).nearest
            }
            changes += engine.tick(now: .at(Double(second))).nearest
            if second < 10 { #expect(engine.nearestBeacon(deviceId: "phone-1")?.beacon == Self.macsGrill, "t=\(second)") }
        }
        // Far sightings of either café neither switch the café nor keep the answer past its freshness.
        #expect(changes == [NearestBeacon(deviceId: "phone-1", beacon: nil, proximity: nil, date: .at(10))])
    }

    @Test("a far beacon of another café does not keep a silent café's answer alive")
    func otherCafeDoesNotKeepAnswer() {
        let engine = Self.engine()
        _ = engine.sighting(Self.sighting(Self.macsGrill, .near, at: 0))
        var changes: [NearestBeacon] = []
        for second in 1...40 {
            changes += engine.sighting(Self.sighting(Self.coffeeBar, .far, at: Double(second))).nearest
            changes += engine.tick(now: .at(Double(second))).nearest
        }
        #expect(changes == [NearestBeacon(deviceId: "phone-1", beacon: nil, proximity: nil, date: .at(10))])
    }

    // MARK: Restart and purge

    @Test("a restored satisfied record is not announced again by the next sighting")
    func restoreThenSighting() {
        let engine = Self.engine()
        let announced = RegionEvent(monitor: "campus", identifier: "macs", deviceId: "phone-1", state: .satisfied,
                                    refinement: Self.macsSalad, flags: [], date: .at(-100))
        engine.restore(deviceId: "phone-1", monitor: "campus", identifier: "macs", lastEvent: announced, now: t0)
        #expect(engine.sighting(Self.sighting(Self.macsSalad, at: 1)).events.isEmpty)
        #expect(engine.record(deviceId: "phone-1", identifier: "macs")?.lastEvent == announced)
    }

    @Test("a restored satisfied record exits one timeout after the restart when the device stays away")
    func restoreThenSilence() {
        let engine = Self.engine()
        engine.restore(deviceId: "phone-1", monitor: "campus", identifier: "macs",
                       lastEvent: RegionEvent(monitor: "campus", identifier: "macs", deviceId: "phone-1", state: .satisfied,
                                              refinement: Self.macsSalad, flags: [], date: .at(-100)), now: t0)
        #expect(engine.tick(now: .at(29)).events.isEmpty)
        #expect(engine.tick(now: .at(30)).events.map(\.state) == [.unsatisfied])
    }

    @Test("a restored unsatisfied record announces the next entry")
    func restoreUnsatisfied() {
        let engine = Self.engine()
        engine.restore(deviceId: "phone-1", monitor: "campus", identifier: "macs",
                       lastEvent: RegionEvent(monitor: "campus", identifier: "macs", deviceId: "phone-1", state: .unsatisfied,
                                              refinement: nil, flags: [], date: .at(-100)), now: t0)
        #expect(engine.tick(now: .at(100)).events.isEmpty)
        #expect(engine.sighting(Self.sighting(Self.macsSalad, at: 101)).events.map(\.state) == [.satisfied])
    }

    @Test("purge drops every record, each announced one last time as unknown and authorizationDenied; the next sighting announces satisfied again")
    func purge() {
        let engine = Self.engine()
        _ = engine.sighting(Self.sighting(Self.macsSalad, .near, at: 0))
        _ = engine.sighting(Self.sighting(Self.macsSalad, device: "other", at: 0))
        #expect(engine.purge(deviceId: "phone-1", at: .at(5)).events == [
            RegionEvent(monitor: "campus", identifier: "macs", deviceId: "phone-1", state: .unknown, refinement: nil, flags: [.authorizationDenied], date: .at(5)),
        ])
        #expect(engine.record(deviceId: "phone-1", identifier: "macs") == nil)
        #expect(engine.nearestBeacon(deviceId: "phone-1") == nil)
        #expect(engine.trackedDevices == 1)
        #expect(engine.purge(deviceId: "phone-1", at: .at(6)).isEmpty)
        // A purged device does not exit later either: there is nothing left to announce.
        #expect(engine.tick(now: .at(30)).events.map(\.deviceId) == ["other"])

        let again = engine.sighting(Self.sighting(Self.macsSalad, .near, at: 40))
        #expect(again.events.map(\.state) == [.satisfied])
        #expect(again.nearest.map(\.beacon) == [Self.macsSalad])
    }
}

@Test("a purged device's timer entry does not fire for the device that reuses its slot")
func purgedSlotReuse() throws {
    let start = Timestamp(milliseconds: 1_700_000_000_000)
    let uuid = "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"
    let engine = try RegionEngine(monitor: "campus", conditions: [BeaconCondition(identifier: "macs", uuid: uuid, major: 1, exitTimeout: 30)])
    func sighting(_ device: String, at seconds: Double) -> Sighting {
        Sighting(deviceId: device, beacon: BeaconIdentity(uuid: uuid, major: 1, minor: 1), rssi: -60, measuredPower: -59, accuracy: 1,
                 proximity: .near, observedAt: start.adding(seconds: seconds))
    }
    _ = engine.sighting(sighting("a", at: 0))
    _ = engine.purge(deviceId: "a", at: start.adding(seconds: 1))
    _ = engine.sighting(sighting("b", at: 20))   // takes a's slot
    #expect(engine.tick(now: start.adding(seconds: 31)).events.isEmpty, "a's exit must not fire, b's is not due")
    let exits = engine.tick(now: start.adding(seconds: 50)).events
    #expect(exits.map(\.deviceId) == ["b"] && exits.map(\.state) == [.unsatisfied])
    #expect(engine.tick(now: start.adding(seconds: 500)).events.isEmpty)
}
