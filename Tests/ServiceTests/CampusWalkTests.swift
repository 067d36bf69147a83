import BeaconIngestCore
import Foundation
import Messages
import RegionMonitorCore
import Testing

/// A phone walks from the car park to Caffè Macs, on to its coffee station 40 m away, and out
/// again, ranging once a second with noisy RSSI. Raw readings go through beacon-ingest's engine
/// (smoothing, distance, proximity) and then region-monitor's, which is ticked every second.
@Suite("A walk across campus")
struct CampusWalkTests {
    static let macsBeacon = BeaconIdentity(uuid: campusUUID, major: 1, minor: 2)   // Caffè Macs salad bar
    static let coffeeBeacon = BeaconIdentity(uuid: campusUUID, major: 2, minor: 1) // coffee station espresso bar
    static let measuredPower = -59
    /// Beyond this a phone does not hear a beacon at all.
    static let range = 35.0
    static let exitTimeout = 30.0

    /// Where the phone is along the path at second `t`: Caffè Macs' beacon at 0 m, the coffee
    /// station's at 40 m; the path runs 1 m beside both.
    static func position(_ t: Int) -> Double {
        let t = Double(t)
        switch t {
        case ..<40: return -60 + 58 * t / 40          // from the car park toward Caffè Macs
        case ..<60: return -1                          // at the counter
        case ..<100: return -1 + (t - 60)              // on to the coffee station
        case ..<120: return 39                         // at the coffee bar
        case ..<160: return 39 + 61 * (t - 120) / 40   // out of the building
        default: return 100                            // gone
        }
    }

    static func distance(_ t: Int, to beacon: BeaconIdentity) -> Double {
        let x = position(t) - (beacon.major == 1 ? 0 : 40)
        return (x * x + 1).squareRoot()
    }

    static func heard(_ t: Int, _ beacon: BeaconIdentity) -> Bool { distance(t, to: beacon) <= range }

    enum Step: Equatable, CustomStringConvertible {
        case event(Int, String, ConditionState, BeaconIdentity?)
        case nearest(Int, BeaconIdentity?)

        var description: String {
            switch self {
            case let .event(t, id, state, refinement): "t=\(t) \(id) \(state.rawValue) \(refinement.map { "\($0.major)/\($0.minor)" } ?? "-")"
            case let .nearest(t, beacon): "t=\(t) nearest \(beacon.map { "\($0.major)/\($0.minor)" } ?? "none")"
            }
        }

        var time: Int {
            switch self {
            case let .event(t, _, _, _), let .nearest(t, _): t
            }
        }

        /// The step without its time.
        var what: String { description.split(separator: " ", maxSplits: 1)[1].description }
    }

    /// Runs the walk and returns every region event and nearest change, in order.
    static func walk(seed: UInt64) throws -> [Step] {
        var noise = LCG(seed: seed)
        let ingest = IngestEngine()
        let conditions = [
            BeaconCondition(identifier: "macs", uuid: campusUUID, major: 1, exitTimeout: exitTimeout),
            BeaconCondition(identifier: "coffee", uuid: campusUUID, major: 2, exitTimeout: exitTimeout),
            BeaconCondition(identifier: "campus", uuid: campusUUID.lowercased(), exitTimeout: exitTimeout),
        ]
        let region = try RegionEngine(monitor: "campus", conditions: conditions)
        var known: DeviceStatus?
        var steps: [Step] = []

        func record(_ effects: RegionEffects, at t: Int) {
            steps += effects.events.map { .event(t, $0.identifier, $0.state, $0.refinement) }
            steps += effects.nearest.map { .nearest(t, $0.beacon) }
        }

        for t in 0...200 {
            let now = Timestamp.at(Double(t))
            var readings: [RangingReport] = []
            for beacon in [macsBeacon, coffeeBeacon] where heard(t, beacon) {
                let ideal = Double(measuredPower) - 20 * log10(distance(t, to: beacon))
                // About one reading in twelve is unreadable (CLBeacon reports 0); the rest are ±3 dB off.
                let rssi = noise.next(in: 0...11) == 0 ? 0 : min(-1, Int(ideal.rounded()) + noise.next(in: -3...3))
                readings.append(RangingReport(uuid: beacon.uuid.lowercased(), major: beacon.major, minor: beacon.minor, rssi: rssi,
                                              measuredPower: measuredPower, timestamp: now))
            }
            let status = known == nil ? DeviceStatusReport(authorization: .always, foreground: true) : nil
            let outcome = try ingest.process(IngestReport(deviceId: "phone-1", status: status, sightings: readings), known: known, now: now)
            #expect(outcome.result.rejected == 0)
            known = outcome.changedStatus ?? known
            for sighting in outcome.sightings { record(region.sighting(sighting), at: t) }
            record(region.tick(now: now), at: t)
            ingest.expire(now: now)
        }
        return steps
    }

    /// The first and last second the phone hears `beacon`.
    static func heardSpan(_ beacon: BeaconIdentity) -> (first: Int, last: Int) {
        let seconds = (0...200).filter { heard($0, beacon) }
        return (seconds.first!, seconds.last!)
    }

    /// The first second the phone is truly within `metres` of `beacon`.
    static func firstWithin(_ metres: Double, of beacon: BeaconIdentity) -> Int {
        (0...200).first { distance($0, to: beacon) < metres }!
    }

    @Test("the path itself: when each beacon is in range and when the phone is at each counter")
    func path() {
        #expect(Self.heardSpan(Self.macsBeacon) == (18, 95))
        #expect(Self.heardSpan(Self.coffeeBeacon) == (67, 143))
        #expect(Self.firstWithin(4, of: Self.macsBeacon) == 39)
        #expect(Self.firstWithin(4, of: Self.coffeeBeacon) == 98)
    }

    @Test("region events and nearest changes, in order and without flapping", arguments: [1, 2, 3, 42, 2020] as [UInt64])
    func walk(seed: UInt64) throws {
        let steps = try Self.walk(seed: seed)
        let macs = Self.heardSpan(Self.macsBeacon), coffee = Self.heardSpan(Self.coffeeBeacon)
        let exit = Int(Self.exitTimeout)

        // What happens, in order: each condition enters once and exits once, the nearest beacon
        // switches once per café and is cleared once the phone has left.
        #expect(steps.map(\.what) == [
            "macs satisfied 1/2",     // first heard far away in the car park: monitoring says "around"
            "campus satisfied 1/2",
            "nearest 1/2",            // at the Caffè Macs counter
            "coffee satisfied 2/1",   // the coffee station comes into range while still in Caffè Macs
            "nearest 2/1",            // at the coffee bar; Caffè Macs far behind
            "macs unsatisfied -",
            "coffee unsatisfied -",   // gone: both café conditions, then the campus-wide one
            "campus unsatisfied -",
            "nearest none",
        ], "\(steps)")
        guard steps.count == 9 else { return }

        // When: entries at the first sighting, exits exactly one exit timeout after the last.
        #expect(steps[0].time == macs.first && steps[1].time == macs.first)
        #expect(steps[3].time == coffee.first)
        #expect(steps[5].time == macs.last + exit)
        #expect(steps[6].time == coffee.last + exit && steps[7].time == coffee.last + exit)
        #expect(steps[8].time == coffee.last + exit)
        // The nearest beacon follows the phone within the smoothing window, never ahead of it.
        let atMacs = Self.firstWithin(4, of: Self.macsBeacon), atCoffee = Self.firstWithin(4, of: Self.coffeeBeacon)
        #expect((atMacs...(atMacs + 10)).contains(steps[2].time), "\(steps[2])")
        #expect((atCoffee...(atCoffee + 10)).contains(steps[4].time), "\(steps[4])")
    }

    @Test("the same seed gives the same walk")
    func deterministic() throws {
        #expect(try Self.walk(seed: 7) == Self.walk(seed: 7))
    }
}
