import Campus
import Foundation
import Messages
import Testing

/// The walk generator itself, against the demo campus: Caffè Macs (major 1, grill minor 1) and
/// its coffee station (major 2, espresso minor 1) 40.08 m due north of it.
@Suite("Campus walk geometry")
struct CampusWalkGeometryTests {
    static let catalog = try! DemoCampus.load()

    static func walk(seed: UInt64 = 7, from: String = "caffe-macs", to: String = "macs-coffee") throws -> CampusWalk {
        try CampusWalk(catalog: catalog, from: from, to: to, seed: seed)
    }

    /// Seconds whose step carries a reading of the beacon with this major.
    static func heard(_ steps: [CampusWalk.Step], major: Int) -> [Int] {
        steps.filter { $0.sightings.contains { $0.major == major } }.map(\.second)
    }

    @Test("the same seed gives the same steps; another seed other noise on the same path")
    func deterministic() throws {
        let a = try Self.walk(seed: 7).steps(start: t0), b = try Self.walk(seed: 7).steps(start: t0)
        #expect(a == b)
        let c = try Self.walk(seed: 8).steps(start: t0)
        #expect(a != c)
        #expect(a.map { $0.sightings.count } == c.map { $0.sightings.count })
        // The time scale moves timestamps only: the readings and fixes are the same draws.
        let fast = try Self.walk(seed: 7).steps(start: t0, scale: 0.05)
        #expect(a.map { $0.sightings.map(\.rssi) } == fast.map { $0.sightings.map(\.rssi) })
        #expect(a.map { $0.fixes.map(\.latitude) } == fast.map { $0.fixes.map(\.latitude) })
    }

    @Test("the legs: 132.7 s to Caffè Macs, 20 s there, 40.1 s on, 20 s at the coffee bar, 134 s away, 45 s gone")
    func legs() throws {
        let walk = try Self.walk()
        #expect(walk.duration == 392)   // 132.67 + 20 + 40.08 + 20 + 134 + 45 = 391.75
        #expect(walk.beacons.map(\.along).map { ($0 * 100).rounded() / 100 } == [0, 40.08])
        let table: [(second: Int, position: Double, leg: CampusWalk.Leg)] = [
            (0, -200, .approaching), (100, -50, .approaching), (132, -2, .approaching),
            (133, -1, .atFrom), (152, -1, .atFrom),
            (153, -0.67, .between), (190, 36.33, .between),
            (193, 39.08, .atTo), (212, 39.08, .atTo),
            (213, 39.46, .leaving), (346, 238.96, .leaving),
            (347, 240.08, .away), (391, 240.08, .away),
        ]
        for row in table {
            #expect(abs(walk.position(row.second) - row.position) < 0.01, "second \(row.second): \(walk.position(row.second))")
            #expect(walk.leg(row.second) == row.leg, "second \(row.second)")
        }
    }

    @Test("each beacon is heard only within 35 m, and the phone stands within 4 m of each at its counter")
    func hearing() throws {
        let walk = try Self.walk()
        let steps = walk.steps(start: t0)
        #expect(steps.count == walk.duration)
        #expect(steps.map(\.second) == Array(0..<walk.duration))
        // Caffè Macs: from 35 m before it (-200 + 1.5 t ≥ -34.99) until 35 m past it on the way on.
        #expect(Self.heard(steps, major: 1) == Array(111...188))
        // The coffee station: from 35 m before it, until 35 m past it on the way out.
        #expect(Self.heard(steps, major: 2) == Array(159...236))
        #expect(steps.allSatisfy { $0.sightings.count <= 2 && $0.fixes.count == 1 })

        let macs = walk.beacons[0], coffee = walk.beacons[1]
        let nearMacs = (0..<walk.duration).filter { walk.distance($0, to: macs) < 4 }
        let nearCoffee = (0..<walk.duration).filter { walk.distance($0, to: coffee) < 4 }
        #expect(nearMacs == Array(131...157))
        #expect(nearCoffee == Array(190...215))
        for second in 133...152 { #expect(abs(walk.distance(second, to: macs) - 2.0.squareRoot()) < 1e-9) }
        for second in 193...212 { #expect(abs(walk.distance(second, to: coffee) - 2.0.squareRoot()) < 1e-9) }
    }

    @Test("readings: lower-case UUID, the café's major and first station's minor, RSSI from distance ±3 dB, one in twelve unreadable")
    func readings() throws {
        let walk = try Self.walk()
        let steps = walk.steps(start: t0)
        let readings = steps.flatMap { step in step.sightings.map { (step.second, $0) } }
        #expect(readings.count == 78 + 78)
        var unreadable = 0
        for (second, reading) in readings {
            #expect(reading.uuid == campusUUID.lowercased())
            #expect([(1, 1), (2, 1)].contains { $0 == (reading.major, reading.minor) })
            #expect(reading.measuredPower == -59)
            guard reading.rssi != 0 else {
                unreadable += 1
                continue
            }
            let beacon = walk.beacons.first { $0.major == reading.major }!
            let ideal = -59 - 20 * log10(walk.distance(second, to: beacon))
            #expect(abs(Double(reading.rssi) - ideal) <= 3.5, "second \(second): \(reading.rssi) dBm against \(ideal)")
            #expect(reading.rssi <= -1)
        }
        #expect((5...25).contains(unreadable), "\(unreadable) of \(readings.count) unreadable")
    }

    @Test("fixes scatter around the path: accuracy 5–10 m outdoors, 15–30 m indoors, error about half of it", arguments: [1, 7, 2020] as [UInt64])
    func fixes(seed: UInt64) throws {
        let walk = try Self.walk(seed: seed)
        let steps = walk.steps(start: t0)
        let macs = try #require(Self.catalog.cafe("caffe-macs"))
        let metresPerDegreeLongitude = 111_320 * cos(macs.latitude * .pi / 180)
        var normalized: [Double] = []
        var indoorSeconds = 0
        for step in steps {
            let fix = try #require(step.fixes.first)
            #expect(fix.precise)
            // The path runs due north, 1 m to the right (east) of both counters.
            let east = (fix.longitude - macs.longitude) * metresPerDegreeLongitude - 1
            let north = (fix.latitude - macs.latitude) * 111_320 - walk.position(step.second)
            let indoors = walk.beacons.contains { walk.distance(step.second, to: $0) <= 15 }
            indoorSeconds += indoors ? 1 : 0
            #expect((indoors ? 15.0...30.0 : 5.0...10.0).contains(fix.horizontalAccuracy), "second \(step.second): \(fix.horizontalAccuracy) m")
            let sigma = fix.horizontalAccuracy / 2
            #expect((east * east + north * north).squareRoot() < 5 * sigma, "second \(step.second) is \(east), \(north) m off")
            normalized += [east / sigma, north / sigma]
        }
        // Indoors: within 15 m of Caffè Macs (seconds 124…168) or of the coffee station (179…223).
        #expect(indoorSeconds == 45 + 45)
        let mean = normalized.reduce(0, +) / Double(normalized.count)
        let variance = normalized.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(normalized.count)
        #expect(abs(mean) < 0.15, "mean \(mean)")
        #expect((0.8...1.2).contains(variance), "variance \(variance)")
    }

    @Test("timestamps are start + second × scale; only the first step carries the status")
    func timestamps() throws {
        let steps = try Self.walk().steps(start: t0, scale: 0.05)
        for step in steps {
            let at = t0.adding(seconds: Double(step.second) * 0.05)
            #expect(step.sightings.allSatisfy { $0.timestamp == at } && step.fixes.allSatisfy { $0.timestamp == at }, "second \(step.second)")
        }
        #expect(steps[391].fixes[0].timestamp == Timestamp(milliseconds: t0.milliseconds + 19_550))
        #expect(steps[0].status == DeviceStatusReport(authorization: .always, foreground: true, precise: true, monitoringAvailable: true, rangingAvailable: true))
        #expect(steps.dropFirst().allSatisfy { $0.status == nil })
    }

    @Test("the walk the other way hears the same spans, each café's beacon in its turn")
    func reversed() throws {
        let steps = try Self.walk(from: "macs-coffee", to: "caffe-macs").steps(start: t0)
        #expect(Self.heard(steps, major: 2) == Array(111...188))
        #expect(Self.heard(steps, major: 1) == Array(159...236))
    }

    @Test("an unknown café is refused by name")
    func unknownCafe() {
        #expect(throws: CatalogError(field: "to", problem: "no café has id \"macs-park\"")) {
            try Self.walk(to: "macs-park")
        }
        #expect(throws: CatalogError.self) { try Self.walk(from: "caffe-macs", to: "caffe-macs") }
    }
}
