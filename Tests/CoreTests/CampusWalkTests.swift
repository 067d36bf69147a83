import BeaconIngestCore
import Campus
import Foundation
import Messages
import RegionMonitorCore
import TestSupport
import Testing

/// A phone walks from the car park into Caffè Macs, on to its coffee station 40 m away, and out
/// again (`CampusWalk`: ranging once a second with noisy RSSI and unreadable readings, a GPS fix
/// once a second with scatter). Raw reports go through beacon-ingest's engine (authorization,
/// smoothing, distance, proximity) and then region-monitor's, with the campus monitor exactly as
/// the service builds it, ticked every second.
@Suite("A walk across campus")
struct CampusWalkTests {
    static let catalog = try! DemoCampus.load()
    static let exitTimeout = 30.0

    /// One event or nearest change, as `cafectl tail region.` would show it.
    struct Step: Equatable, CustomStringConvertible {
        var second: Int
        var what: String
        var description: String { "t=\(second) \(what)" }
    }

    /// Every region event and nearest change of the walk, in order.
    static func walk(seed: UInt64) throws -> [Step] {
        try run(seed: seed).steps
    }

    /// The walk's steps, and the seconds at which each beacon ("major/minor") was sighted near or immediate.
    static func run(seed: UInt64) throws -> (steps: [Step], near: [String: [Int]]) {
        let walk = try CampusWalk(catalog: catalog, seed: seed)
        let ingest = IngestEngine()
        var settings = RegionSettings()
        settings.exitTimeout = exitTimeout
        let region = RegionEngine(settings: settings)
        region.declareBuiltIn("campus")
        for spec in ConditionSpec.campus(catalog, monitor: "campus") { try region.add(spec, owner: nil, now: t0) }
        var known: DeviceStatus?
        var steps: [Step] = []
        var near: [String: [Int]] = [:]
        func record(_ effects: RegionEffects, at second: Int) {
            steps += effects.events.map { Step(second: second, what: describe($0)) }
            steps += effects.nearest.map { Step(second: second, what: describe($0)) }
        }
        for step in walk.steps(start: t0) {
            let now = t0.adding(seconds: Double(step.second))
            let outcome = try ingest.process(IngestReport(deviceId: "phone-1", status: step.status, sightings: step.sightings, fixes: step.fixes),
                                             known: known, now: now)
            #expect(outcome.result.rejected == 0, "t=\(step.second): \(outcome.result.rejections)")
            known = outcome.changedStatus ?? known
            for sighting in outcome.sightings {
                if sighting.proximity.decidesPlace { near["\(sighting.beacon.major)/\(sighting.beacon.minor)", default: []].append(step.second) }
                record(region.sighting(sighting), at: step.second)
            }
            for fix in outcome.fixes { record(region.fix(fix), at: step.second) }
            record(region.tick(now: now), at: step.second)
            ingest.expire(now: now)
        }
        return (steps, near)
    }

    static func describe(_ event: RegionEvent) -> String {
        "\(event.identifier) \(event.state.rawValue)" + (event.refinement.map { " \($0.major)/\($0.minor)" } ?? "")
            + (event.flags.isEmpty ? "" : " " + event.flags.map(\.rawValue).joined(separator: ","))
    }

    static func describe(_ nearest: NearestBeacon) -> String {
        "nearest " + CampusWalkExpectation.describe(nearest)
    }

    static func perCondition(_ steps: [Step]) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for step in steps {
            let (key, rest) = step.what.split(separator: " ", maxSplits: 1).map(String.init).pair
            result[key, default: []].append(rest)
        }
        return result
    }

    @Test("every condition enters and leaves exactly once, nothing flaps", arguments: [1, 2, 3, 42, 2020] as [UInt64])
    func perConditionSequences(seed: UInt64) throws {
        let steps = try Self.walk(seed: seed)
        #expect(Self.perCondition(steps) == CampusWalkExpectation.perCondition, "\(steps)")
    }

    @Test("the exact event sequence, and when each event comes", arguments: [1, 2, 3, 42, 2020] as [UInt64])
    func exactSequence(seed: UInt64) throws {
        let (steps, near) = try Self.run(seed: seed)
        let walk = try CampusWalk(catalog: Self.catalog, seed: seed)
        let macs = walk.beacons[0], coffee = walk.beacons[1]
        let heardMacs = (0..<walk.duration).filter { walk.distance($0, to: macs) <= CampusWalk.hearingMetres }
        let heardCoffee = (0..<walk.duration).filter { walk.distance($0, to: coffee) <= CampusWalk.hearingMetres }
        let exit = Int(Self.exitTimeout)
        func time(_ what: String) -> Int? { steps.first { $0.what == what }?.second }
        func times(_ what: String) -> [Int] { steps.filter { $0.what == what }.map(\.second) }

        // In the car park, the first fix places the phone outside every café's area and approach
        // area, in catalog order.
        #expect(steps.prefix(12).map(\.what) == ["caffe-macs", "macs-coffee", "parmer-lane-5", "munich-cafe", "london-cafe", "tokyo-cafe"]
                .flatMap { ["\($0).area unsatisfied", "\($0).approach unsatisfied"] })
        #expect(steps.prefix(12).allSatisfy { $0.second == 0 })
        // Then, in this order: into Caffè Macs' area (GPS, ~110 m out), its beacons heard (35 m),
        // its counter (near), the coffee station's beacons, the way between the counters (no
        // beacon near), the coffee bar; leaving: Caffè Macs' beacons time out, the nearest answer
        // ends, then the coffee station's beacons time out, and the areas once the phone is past
        // their radius plus the hysteresis.
        let entering = ["caffe-macs.approach satisfied", "caffe-macs.area satisfied", "caffe-macs satisfied 1/1", "nearest 1/1", "macs-coffee satisfied 2/1",
                        "nearest none", "nearest 2/1"]
        let order = entering.compactMap(time)
        #expect(order.count == entering.count && order == order.sorted(), "\(steps)")
        #expect(time("caffe-macs satisfied 1/1") == heardMacs.first)
        #expect(time("macs-coffee satisfied 2/1") == heardCoffee.first)
        // The beacon conditions exit exactly one exit timeout after the last reading, fired by the timer.
        #expect(time("caffe-macs unsatisfied") == heardMacs.last! + exit)
        #expect(time("macs-coffee unsatisfied") == heardCoffee.last! + exit)
        // The nearest answer ends one freshness (10 s) after its beacon's last near sighting, fired
        // by the timer: between the counters, and on the way out before the coffee station's exit.
        let nearestChanges = steps.filter { $0.what.hasPrefix("nearest ") }
        #expect(nearestChanges.map(\.what) == ["nearest 1/1", "nearest none", "nearest candidates 1,2", "nearest 2/1", "nearest none"])
        for (answer, cleared) in zip(nearestChanges, nearestChanges.dropFirst()) where cleared.what == "nearest none" {
            let beacon = String(answer.what.dropFirst("nearest ".count))
            let lastNear = try #require(near[beacon]?.last { $0 < cleared.second })
            #expect(cleared.second == lastNear + 10, "\(beacon) last near at \(lastNear)")
        }
        #expect((time("caffe-macs unsatisfied") ?? .max) < (times("nearest none").last ?? -1))
        #expect((times("nearest none").last ?? .max) < (time("macs-coffee unsatisfied") ?? -1))
        // The nearest beacon follows the phone within the smoothing window, never ahead of it.
        let atMacs = (0..<walk.duration).first { walk.distance($0, to: macs) < 4 }!
        let atCoffee = (0..<walk.duration).first { walk.distance($0, to: coffee) < 4 }!
        #expect((atMacs...(atMacs + 10)).contains(time("nearest 1/1") ?? -1))
        #expect((atCoffee...(atCoffee + 10)).contains(time("nearest 2/1") ?? -1))
        // Each area is left once, past its radius plus the 20 m hysteresis (give or take the scatter).
        for (area, radius) in [("caffe-macs.area", 120.0), ("macs-coffee.area", 60.0)] {
            let left = try #require(times("\(area) unsatisfied").last)
            let beacon = area.hasPrefix("caffe") ? macs : coffee
            #expect((radius + 20 - 15...radius + 20 + 25).contains(walk.distance(left, to: beacon)), "\(area) left at \(walk.distance(left, to: beacon)) m")
        }
        #expect(steps.count == 29, "\(steps)")
    }

    @Test("the same seed gives the same walk")
    func deterministic() throws {
        #expect(try Self.walk(seed: 7) == Self.walk(seed: 7))
    }
}

private extension Array where Element == String {
    /// The first element and the rest ("" when there is none).
    var pair: (String, String) { (first ?? "", count > 1 ? self[1] : "") }
}
