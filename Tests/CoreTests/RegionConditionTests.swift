import Campus
import Foundation
import Messages
import RegionMonitorCore
import Testing

/// Circles, dwell, flags, assumed states, monitors and confirmations, with an injected clock:
/// every input carries its time and the timer is driven by `tick(now:)`.
@Suite("Region engine: circles, flags, monitors, confirmations")
struct RegionConditionTests {
    static let center = (latitude: 37.3349, longitude: -122.009)
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180

    /// A point `metres` north of the center (distance along a meridian is exact).
    static func north(_ metres: Double) -> (latitude: Double, longitude: Double) {
        (center.latitude + metres / metresPerDegree, center.longitude)
    }

    static func fix(_ metres: Double, accuracy: Double, precise: Bool = true, device: String = "phone-1", at seconds: Double) -> LocationFix {
        let point = north(metres)
        return LocationFix(deviceId: device, latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: accuracy,
                           precise: precise, observedAt: .at(seconds))
    }

    static func circle(radius: Double = 100, hysteresis: Double? = 20, dwell: Double? = nil) -> Condition {
        .circle(latitude: center.latitude, longitude: center.longitude, radius: radius, hysteresis: hysteresis, dwell: dwell)
    }

    /// An engine with monitor "m" opened by "app".
    static func engine(_ settings: RegionSettings = RegionSettings()) throws -> RegionEngine {
        let engine = RegionEngine(settings: settings)
        try engine.open(monitor: "m", owner: "app")
        return engine
    }

    static func add(_ engine: RegionEngine, _ identifier: String, _ condition: Condition, device: String? = nil,
                    assuming: ConditionState? = nil, at seconds: Double = 0) throws -> RegionEffects {
        try engine.add(ConditionSpec(monitor: "m", identifier: identifier, condition: condition, deviceId: device, assuming: assuming),
                       owner: "app", now: .at(seconds)).effects
    }

    static func sighting(_ major: Int, _ minor: Int, _ proximity: Proximity = .near, accuracy: Double = 2, device: String = "phone-1",
                         at seconds: Double) -> Sighting {
        Sighting(deviceId: device, beacon: BeaconIdentity(uuid: campusUUID, major: major, minor: minor), rssi: -65, measuredPower: -59,
                 accuracy: accuracy, proximity: proximity, observedAt: .at(seconds))
    }

    // MARK: Circles

    @Test("one fix against a 100 m circle with 20 m hysteresis: state before × distance × uncertainty × precision", arguments: [
        // before, metres from center, horizontal accuracy, precise, state after, flags after
        (nil, 50.0, 10.0, true, ConditionState.satisfied, [EventFlag]()),          // wholly inside
        (nil, 95.0, 10.0, true, .unknown, []),                                      // straddles the edge: keeps unknown
        (nil, 105.0, 10.0, true, .unknown, []),                                     // straddles from outside
        (nil, 150.0, 10.0, true, .unsatisfied, []),                                 // wholly outside
        (.unsatisfied, 95.0, 10.0, true, .unsatisfied, []),                         // straddles: stays out
        (.unsatisfied, 89.0, 10.0, true, .satisfied, []),                           // in, uncertainty and all
        (.satisfied, 115.0, 10.0, true, .satisfied, []),                            // past the radius, inside the hysteresis
        (.satisfied, 118.0, 0.0, true, .satisfied, []),                             // ditto, exact fix
        (.satisfied, 121.0, 0.0, true, .unsatisfied, []),                           // just beyond, exact fix
        (.satisfied, 131.0, 10.0, true, .unsatisfied, []),                          // beyond radius + hysteresis
        (.satisfied, 60.0, 10.0, true, .satisfied, []),
        (nil, 0.0, 150.0, false, .unknown, [.accuracyLimited]),                     // approximate, wider than the circle
        (.satisfied, 10.0, 500.0, false, .unknown, [.accuracyLimited]),             // never satisfies a smaller condition
        (nil, 0.0, 50.0, false, .unknown, [.accuracyLimited]),                      // approximate claiming 50 m: counts as 1 km (was: satisfied)
        (nil, 5_000.0, 3_000.0, false, .unsatisfied, []),                           // approximate, wholly outside
        (.satisfied, 0.0, 150.0, true, .satisfied, []),                             // precise but coarse: straddles, keeps
    ] as [(ConditionState?, Double, Double, Bool, ConditionState, [EventFlag])])
    func circleRule(before: ConditionState?, metres: Double, accuracy: Double, precise: Bool, after: ConditionState, flags: [EventFlag]) throws {
        let engine = try Self.engine()
        _ = try Self.add(engine, "office", Self.circle(), assuming: before)
        let effects = engine.fix(Self.fix(metres, accuracy: accuracy, precise: precise, at: 1))
        let record = try #require(engine.record(monitor: "m", identifier: "office", deviceId: "phone-1"))
        #expect(record.state == after)
        let changed = after != (before ?? .unknown) || !flags.isEmpty
        #expect(effects.events == (changed ? [RegionEvent(monitor: "m", identifier: "office", deviceId: "phone-1", state: after,
                                                          refinement: nil, flags: flags, date: .at(1))] : []))
        // No event carries a position: states, identifiers and flags only.
        #expect(!String(decoding: Wire.encode(effects.events), as: UTF8.self).contains("37.33"))
    }

    @Test("GPS scatter at the boundary: enter once, leave once, no flapping")
    func scatterDoesNotFlap() throws {
        let engine = try Self.engine()
        _ = try Self.add(engine, "office", Self.circle())
        var events: [RegionEvent] = []
        // Walking in from 300 m to the center, then out to 300 m, 1 m/s, a fix a second with ±12 m
        // of scatter around the true position and a 10 m uncertainty.
        var random = SeededRandom(seed: 9)
        for second in 0...600 {
            let truth = second <= 300 ? 300 - Double(second) : Double(second - 300)
            let scatter = (random.unit() * 2 - 1) * 12
            events += engine.fix(Self.fix(truth + scatter, accuracy: 10, at: Double(second))).events
        }
        #expect(events.map(\.state) == [.unsatisfied, .satisfied, .unsatisfied])
        let enteredAt = events[1].date.seconds(since: t0), leftAt = events[2].date.seconds(since: t0)
        // In when the fix and its uncertainty fit inside (90 m ± scatter); out beyond radius + hysteresis + uncertainty (130 m ± scatter).
        #expect((78.0...102.0).contains(300 - enteredAt), "entered \(300 - enteredAt) m out")
        #expect((118.0...142.0).contains(leftAt - 300), "left \(leftAt - 300) m out")
    }

    @Test("dwell: satisfied only after the dwell time inside, fired by the timer; leaving first cancels it")
    func dwell() throws {
        let engine = try Self.engine()
        _ = try Self.add(engine, "office", Self.circle(dwell: 60))
        #expect(engine.fix(Self.fix(10, accuracy: 5, at: 0)).events.isEmpty)
        #expect(engine.fix(Self.fix(95, accuracy: 10, at: 20)).events.isEmpty)    // straddling keeps the dwell running
        #expect(engine.tick(now: .at(59.999)).events.isEmpty)
        #expect(engine.tick(now: .at(60)).events == [RegionEvent(monitor: "m", identifier: "office", deviceId: "phone-1", state: .satisfied,
                                                                    refinement: nil, flags: [], date: .at(60))])
        #expect(engine.tick(now: .at(600)).events.isEmpty)

        let other = try Self.engine()
        _ = try Self.add(other, "office", Self.circle(dwell: 60))
        _ = other.fix(Self.fix(10, accuracy: 5, device: "d2", at: 0))
        #expect(other.fix(Self.fix(400, accuracy: 5, device: "d2", at: 30)).events.map(\.state) == [.unsatisfied])
        #expect(other.tick(now: .at(90)).events.isEmpty, "left before the dwell time: never satisfied")
        // Back inside: the dwell starts over.
        _ = other.fix(Self.fix(10, accuracy: 5, device: "d2", at: 100))
        #expect(other.tick(now: .at(159)).events.isEmpty)
        #expect(other.tick(now: .at(160)).events.map(\.state) == [.satisfied])
    }

    @Test("a fix older than the latest moves nothing")
    func outOfOrderFix() throws {
        let engine = try Self.engine()
        _ = try Self.add(engine, "office", Self.circle())
        #expect(engine.fix(Self.fix(10, accuracy: 5, at: 10)).events.map(\.state) == [.satisfied])
        #expect(engine.fix(Self.fix(900, accuracy: 5, at: 5)).events.isEmpty)
        #expect(engine.record(monitor: "m", identifier: "office", deviceId: "phone-1")?.state == .satisfied)
    }

    // MARK: Beacons

    @Test("a wildcard condition is refined to the nearest matching beacon, uuid, major and minor each from its own field")
    func refinementIsNearestMatching() throws {
        let engine = try Self.engine()
        _ = try Self.add(engine, "macs", .beacon(uuid: campusUUID, major: 1, minor: nil))
        _ = engine.sighting(Self.sighting(1, 3, .near, accuracy: 1.5, at: 0))
        // Added later, satisfied by a far beacon of another café: the nearest matching one heard is Caffè Macs' pizza oven.
        _ = try Self.add(engine, "company", .beacon(uuid: campusUUID.lowercased(), major: nil, minor: nil), at: 1)
        let effects = engine.sighting(Self.sighting(2, 7, .far, accuracy: 9, at: 2))
        let refinement = try #require(effects.events.first?.refinement)
        #expect(effects.events.map(\.identifier) == ["company"])
        #expect(refinement.uuid == campusUUID && refinement.major == 1 && refinement.minor == 3)
    }

    @Test("a device that cannot range: beacon conditions flagged conditionUnsupported, circles untouched, cleared when it can again")
    func conditionUnsupported() throws {
        let engine = try Self.engine()
        _ = try Self.add(engine, "macs", .beacon(uuid: campusUUID, major: 1, minor: nil))
        _ = try Self.add(engine, "office", Self.circle())
        let off = engine.status(deviceId: "phone-1", rangingAvailable: false, at: .at(1))
        #expect(off.events == [RegionEvent(monitor: "m", identifier: "macs", deviceId: "phone-1", state: .unknown, refinement: nil,
                                           flags: [.conditionUnsupported], date: .at(1))])
        #expect(engine.status(deviceId: "phone-1", rangingAvailable: false, at: .at(2)).isEmpty, "no change, no event")
        // A beacon condition added while the device cannot range is flagged at once.
        let added = try Self.add(engine, "coffee", .beacon(uuid: campusUUID, major: 2, minor: 1), at: 3)
        #expect(added.events.map(\.identifier) == ["coffee"] && added.events.allSatisfy { $0.flags == [.conditionUnsupported] })
        let on = engine.status(deviceId: "phone-1", rangingAvailable: true, at: .at(4))
        #expect(on.events.map(\.identifier) == ["macs", "coffee"] && on.events.allSatisfy { $0.flags.isEmpty && $0.state == .unknown })
        #expect(engine.status(deviceId: "never-seen", rangingAvailable: true, at: .at(5)).isEmpty)
    }

    @Test("assumed states: no event for the assumption; an event only when reality differs", arguments: [
        // assumed, sighted before the timeout, events
        (ConditionState.satisfied, true, [ConditionState]()),
        (.satisfied, false, [.unsatisfied]),
        (.unsatisfied, true, [.satisfied]),
        (.unsatisfied, false, []),
    ])
    func assumedBeaconState(assumed: ConditionState, sighted: Bool, expected: [ConditionState]) throws {
        var settings = RegionSettings()
        settings.exitTimeout = 30
        let engine = try Self.engine(settings)
        _ = engine.sighting(Self.sighting(3, 1, .far, at: 0))           // a device already tracked, elsewhere
        #expect(try Self.add(engine, "macs", .beacon(uuid: campusUUID, major: 1, minor: nil), assuming: assumed, at: 1).isEmpty)
        #expect(engine.record(monitor: "m", identifier: "macs", deviceId: "phone-1")?.state == assumed)
        #expect(engine.record(monitor: "m", identifier: "macs", deviceId: "phone-1")?.lastEvent == nil)
        var events: [RegionEvent] = []
        if sighted { events += engine.sighting(Self.sighting(1, 1, at: 10)).events }
        events += engine.tick(now: .at(31)).events
        if !sighted { events += engine.tick(now: .at(41)).events }
        #expect(events.map(\.state) == expected)
    }

    @Test("a condition for one device ignores every other device")
    func perDeviceCondition() throws {
        let engine = try Self.engine()
        _ = try Self.add(engine, "mine", .beacon(uuid: campusUUID, major: 1, minor: nil), device: "phone-1")
        #expect(engine.sighting(Self.sighting(1, 1, device: "phone-2", at: 0)).events.isEmpty)
        #expect(engine.record(monitor: "m", identifier: "mine", deviceId: "phone-2") == nil)
        #expect(engine.sighting(Self.sighting(1, 1, device: "phone-1", at: 1)).events.map(\.deviceId) == ["phone-1"])
    }

    @Test("adding under an existing identifier replaces the condition and drops its records; remove drops them too")
    func replaceAndRemove() throws {
        let engine = try Self.engine()
        _ = try Self.add(engine, "macs", .beacon(uuid: campusUUID, major: 1, minor: nil))
        for device in ["a", "b", "c"] { _ = engine.sighting(Self.sighting(1, 1, device: device, at: 0)) }
        let replaced = try engine.add(ConditionSpec(monitor: "m", identifier: "macs", condition: .beacon(uuid: campusUUID, major: 2, minor: nil)),
                                      owner: "app", now: .at(1))
        #expect(replaced.replacedRecords == 3)
        #expect(engine.record(monitor: "m", identifier: "macs", deviceId: "a") == nil)
        #expect(engine.identifiers(monitor: "m") == ["macs"])
        #expect(engine.tick(now: .at(600)).events.isEmpty, "the old condition's records do not exit")
        #expect(engine.sighting(Self.sighting(2, 1, device: "a", at: 601)).events.map(\.state) == [.satisfied])
        #expect(try engine.remove(monitor: "m", identifier: "macs", owner: "app") == 1)
        #expect(engine.identifiers(monitor: "m") == [])
        #expect(throws: ServiceError.self) { try engine.remove(monitor: "m", identifier: "macs", owner: "app") }
        #expect(engine.sighting(Self.sighting(2, 1, device: "a", at: 602)).events.isEmpty)
    }

    // MARK: Monitors

    @Test("one owner per monitor name at a time")
    func ownership() throws {
        let engine = RegionEngine()
        engine.declareBuiltIn("campus")
        func code(_ body: () throws -> Void) -> String? {
            do {
                try body()
                return nil
            } catch let error as ServiceError {
                return error.code
            } catch {
                return "\(error)"
            }
        }
        let beacon = Condition.beacon(uuid: campusUUID, major: 1, minor: nil)
        func add(_ monitor: String, _ owner: String) throws {
            try engine.add(ConditionSpec(monitor: monitor, identifier: "x", condition: beacon), owner: owner, now: t0)
        }
        #expect(code { try add("orders", "app") } == "monitor.unknown")
        #expect(code { try engine.open(monitor: "orders", owner: "app") } == nil)
        #expect(code { try engine.open(monitor: "orders", owner: "app") } == nil, "opening again as the same owner is harmless")
        #expect(code { try engine.open(monitor: "orders", owner: "other") } == "monitor.owned")
        #expect(code { try add("orders", "other") } == "monitor.notOwner")
        #expect(code { try add("orders", "app") } == nil)
        #expect(code { try engine.close(monitor: "orders", owner: "other") } == "monitor.notOwner")
        #expect(code { try engine.close(monitor: "orders", owner: "app") } == nil)
        #expect(code { try add("orders", "app") } == "monitor.notOwner", "closed: open it again first")
        #expect(code { try engine.open(monitor: "orders", owner: "other") } == nil, "released: another owner may take it")
        #expect(engine.info("orders") == MonitorInfo(monitor: "orders", owner: "other", conditions: 1, conditionLimit: 20, builtIn: false))
        #expect(code { try engine.open(monitor: "campus", owner: "app") } == "monitor.owned")
        #expect(code { try add("campus", "app") } == "monitor.owned")
        #expect(code { try engine.open(monitor: "bad.name", owner: "app") } == "request.invalidField")
        #expect(code { try engine.open(monitor: "ok", owner: "") } == "request.invalidField")
    }

    @Test("the per-monitor condition limit is answered with monitor.conditionLimitExceeded; replacing at the limit is fine")
    func conditionLimit() throws {
        var settings = RegionSettings()
        settings.conditionLimit = 3
        let engine = try Self.engine(settings)
        for i in 0..<3 { _ = try Self.add(engine, "c\(i)", .beacon(uuid: campusUUID, major: i, minor: nil)) }
        #expect(throws: ServiceError(code: "monitor.conditionLimitExceeded", message: "monitor m already holds 3 conditions, the limit")) {
            try Self.add(engine, "c3", .beacon(uuid: campusUUID, major: 3, minor: nil))
        }
        _ = try Self.add(engine, "c1", Self.circle())
        #expect(engine.identifiers(monitor: "m") == ["c0", "c1", "c2"])
    }

    @Test("the number of monitors is limited")
    func monitorLimit() throws {
        var settings = RegionSettings()
        settings.monitorLimit = 2
        let engine = RegionEngine(settings: settings)
        engine.declareBuiltIn("campus")
        try engine.open(monitor: "a", owner: "o")
        try engine.open(monitor: "b", owner: "o")
        #expect(throws: ServiceError.self) { try engine.open(monitor: "c", owner: "o") }
        #expect(engine.monitorInfos.map(\.monitor) == ["a", "b", "campus"])
    }

    @Test("every invalid condition is refused with monitor.invalidCondition and changes nothing", arguments: [
        Condition.beacon(uuid: "not-a-uuid", major: nil, minor: nil),
        .beacon(uuid: campusUUID, major: 70_000, minor: nil),
        .beacon(uuid: campusUUID, major: -1, minor: nil),
        .beacon(uuid: campusUUID, major: 1, minor: 65_536),
        .beacon(uuid: campusUUID, major: nil, minor: 1),
        .beacon(uuid: campusUUID, major: 1, minor: nil, exitTimeout: 0),
        .beacon(uuid: campusUUID, major: 1, minor: nil, exitTimeout: .nan),
        .circle(latitude: 91, longitude: 0, radius: 100),
        .circle(latitude: 0, longitude: -181, radius: 100),
        .circle(latitude: 0, longitude: 0, radius: 0),
        .circle(latitude: 0, longitude: 0, radius: 200_000),
        .circle(latitude: 0, longitude: 0, radius: .infinity),
        .circle(latitude: 0, longitude: 0, radius: 100, hysteresis: -1),
        .circle(latitude: 0, longitude: 0, radius: 100, dwell: -5),
    ])
    func invalidCondition(_ condition: Condition) throws {
        let engine = try Self.engine()
        #expect { try Self.add(engine, "x", condition) } throws: { ($0 as? ServiceError)?.code == "monitor.invalidCondition" }
        #expect(engine.identifiers(monitor: "m") == [])
    }

    // MARK: Confirmation

    @Test("location confirmation: yes / no / disallowed from the precise fix nearest the acquisition, within the window", arguments: [
        // fixes (metres north, accuracy, precise, seconds), acquired at, result, reason
        ([(20.0, 10.0, true, 0.0)], 5.0, LocationConfirmation.Result.yes, LocationConfirmation.Reason?.none),
        ([(80.0, 10.0, true, 0.0)], 5.0, .yes, nil),
        ([(101.0, 10.0, true, 0.0)], 5.0, .no, nil),
        ([(400.0, 10.0, true, 0.0)], 5.0, .no, nil),
        ([], 5.0, .disallowed, .noFreshFix),
        ([(20.0, 10.0, true, 0.0)], 61.0, .disallowed, .noFreshFix),                 // the fix is too old
        ([(20.0, 10.0, true, 0.0)], -61.0, .disallowed, .noFreshFix),                // or too far after
        ([(20.0, 1000.0, false, 0.0)], 5.0, .disallowed, .approximateOnly),
        ([(20.0, 150.0, true, 0.0)], 5.0, .disallowed, .fixTooCoarse),
        ([(400.0, 10.0, true, 0.0), (20.0, 10.0, true, 50.0)], 48.0, .yes, nil),    // the nearest in time decides
        ([(400.0, 10.0, true, 0.0), (20.0, 10.0, true, 50.0)], 2.0, .no, nil),
        ([(20.0, 900.0, false, 4.0), (400.0, 10.0, true, 0.0)], 5.0, .no, nil),     // precise beats nearer approximate
    ] as [([(Double, Double, Bool, Double)], Double, LocationConfirmation.Result, LocationConfirmation.Reason?)])
    func confirmation(fixes: [(Double, Double, Bool, Double)], acquiredAt: Double, result: LocationConfirmation.Result,
                      reason: LocationConfirmation.Reason?) throws {
        let engine = RegionEngine()
        for (metres, accuracy, precise, at) in fixes { _ = engine.fix(Self.fix(metres, accuracy: accuracy, precise: precise, at: at)) }
        let answer = engine.confirm(deviceId: "phone-1", latitude: Self.center.latitude, longitude: Self.center.longitude, radius: 100,
                                    acquiredAt: .at(acquiredAt))
        #expect(answer.result == result)
        #expect(answer.reason == reason)
    }

    @Test("a confirmation region wider than 500 m is refused naming its radius, however wide (1e300 used to trap converting it)", arguments: [
        (501.0, "not 501 m"), (1e300, "not 1e+300 m"),
    ])
    func regionTooLarge(radius: Double, shown: String) throws {
        let request = ConfirmLocation(deviceId: "phone-1", code: "https://example.com/c", acquiredAt: .at(0),
                                      region: ConfirmRegion(latitude: Self.center.latitude, longitude: Self.center.longitude, radius: radius))
        let error = #expect(throws: ServiceError.self) { try RegionEngine().confirmation(request, catalog: DemoCampus.load(), now: .at(1)) }
        #expect(error?.code == "location.regionTooLarge" && error?.message.hasSuffix(shown) == true, "\(String(describing: error))")
    }

    @Test("cafés by distance from a fresh fix; none from a stale one or none at all")
    func placesByDistance() throws {
        let engine = RegionEngine()
        let places = [(id: "far", latitude: Self.north(900).latitude, longitude: Self.center.longitude),
                      (id: "near", latitude: Self.north(100).latitude, longitude: Self.center.longitude),
                      (id: "here", latitude: Self.center.latitude, longitude: Self.center.longitude)]
        #expect(engine.placesByDistance(deviceId: "phone-1", places: places, now: .at(0)).isEmpty)
        _ = engine.fix(Self.fix(80, accuracy: 10, at: 0))
        #expect(engine.placesByDistance(deviceId: "phone-1", places: places, now: .at(10)) == ["near", "here", "far"])
        #expect(engine.placesByDistance(deviceId: "phone-1", places: places, now: .at(121)).isEmpty)
    }

    @Test("fixes are bounded in number and age, and dropped with everything else when authorization is withdrawn")
    func fixRetention() throws {
        var settings = RegionSettings()
        settings.fixesPerDevice = 3
        settings.fixRetention = 100
        let engine = RegionEngine(settings: settings)
        for second in 0..<5 { _ = engine.fix(Self.fix(10, accuracy: 5, at: Double(second))) }
        #expect(engine.fixCount(deviceId: "phone-1") == 3)
        #expect(engine.expireFixes(now: .at(103.5)) == 2)
        #expect(engine.fixCount(deviceId: "phone-1") == 1)
        _ = engine.purge(deviceId: "phone-1", at: .at(104))
        #expect(engine.fixCount(deviceId: "phone-1") == 0)
        #expect(engine.confirm(deviceId: "phone-1", latitude: Self.center.latitude, longitude: Self.center.longitude, radius: 100,
                               acquiredAt: .at(104)).reason == .noFreshFix)
    }

    @Test("restored records keep their flags: nothing unchanged is announced again")
    func restoreFlags() throws {
        let engine = try Self.engine()
        _ = try Self.add(engine, "office", Self.circle())
        engine.restore(deviceId: "phone-1", monitor: "m", identifier: "office",
                       lastEvent: RegionEvent(monitor: "m", identifier: "office", deviceId: "phone-1", state: .unknown, refinement: nil,
                                              flags: [.accuracyLimited], date: .at(-10)), now: t0)
        #expect(engine.fix(Self.fix(0, accuracy: 300, precise: false, at: 1)).events.isEmpty)
        #expect(engine.fix(Self.fix(0, accuracy: 5, at: 2)).events.map(\.state) == [.satisfied])
    }
}
