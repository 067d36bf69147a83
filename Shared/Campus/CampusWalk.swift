import Foundation
import Messages

/// A phone walking across campus, the same every time for a seed: from the car park to one café's
/// counter, on to another café's counter, and away. It ranges each café's beacon once a second
/// with noisy RSSI and reports a GPS fix once a second, as `ingest.report` steps. A unit test
/// replays it through the engines and `cafectl walk` through the running platform.
///
/// The path is the straight line through café `from`'s center toward café `to`'s center, 1 m to
/// the right of both (as the phone walks), so no distance is ever 0. Positions along it are metres from `from`'s center
/// (negative before it): the phone starts 200 m before `from`, walks at 1.5 m/s to 1 m short of
/// its center, stands at the counter 20 s, walks at 1 m/s to 1 m short of `to`'s center, stands
/// there 20 s, walks on at 1.5 m/s to 200 m past `to`, and stays there 45 s, hearing no beacons.
public struct CampusWalk: Sendable {
    /// What the phone sends in one second of the walk: one `ingest.report`.
    public struct Step: Sendable, Equatable {
        public var second: Int
        /// Only on step 0: `always`, in the foreground, precise, monitoring and ranging available.
        public var status: DeviceStatusReport?
        public var sightings: [RangingReport]
        public var fixes: [FixReport]

        public init(second: Int, status: DeviceStatusReport?, sightings: [RangingReport], fixes: [FixReport]) {
            self.second = second
            self.status = status
            self.sightings = sightings
            self.fixes = fixes
        }
    }

    /// The parts of the walk, in order.
    public enum Leg: String, Sendable, CaseIterable {
        /// From the car park toward café `from`.
        case approaching
        /// Standing at `from`'s counter.
        case atFrom
        /// On the way from `from` to `to`.
        case between
        /// Standing at `to`'s counter.
        case atTo
        /// Walking on past `to`.
        case leaving
        /// 200 m past `to`, out of every beacon's range, still reporting fixes.
        case away
    }

    /// A café's one beacon as the walk hears it: at the café's center.
    public struct Beacon: Sendable, Equatable {
        public var cafeId: String
        /// The UUID in lower case, as phones send it; major the café's, minor its first station's.
        public var uuid: String
        public var major: Int
        public var minor: Int
        /// Metres along the path from `from`'s center.
        public var along: Double
    }

    public static let carParkMetres = 200.0
    public static let walkingSpeed = 1.5
    public static let strollingSpeed = 1.0
    /// How far short of a café's center the phone stops at its counter.
    public static let counterMetres = 1.0
    public static let counterSeconds = 20.0
    public static let awaySeconds = 45.0
    /// The path runs this far to the side of both centers.
    public static let sideMetres = 1.0
    /// Beyond this a phone does not hear a beacon at all.
    public static let hearingMetres = 35.0
    /// Calibrated RSSI at 1 m of every beacon.
    public static let measuredPower = -59
    /// Within this distance of a café's center the phone is indoors, where GPS is worse.
    public static let indoorMetres = 15.0
    /// Metres per degree of latitude (and of longitude at the equator).
    public static let metresPerDegree = 111_320.0

    public let from: Cafe
    public let to: Cafe
    public let seed: UInt64
    /// `from`'s beacon, then `to`'s.
    public let beacons: [Beacon]
    /// Walk seconds: `steps` returns one step for each second 0..<duration.
    public let duration: Int

    /// The unit vector from `from` toward `to` and the one to its side, in metres east and north.
    private let forward: (east: Double, north: Double)
    private let side: (east: Double, north: Double)
    private let metresPerDegreeLongitude: Double
    /// The legs with the second each starts at and the positions it runs between.
    private let legs: [(leg: Leg, start: Double, seconds: Double, from: Double, to: Double)]

    /// Throws a `CatalogError` naming a café id the catalog does not have, a café without
    /// stations, or two cafés at the same place (the path would have no direction).
    public init(catalog: CampusCatalog, from fromId: String = "caffe-macs", to toId: String = "macs-coffee", seed: UInt64) throws {
        guard let from = catalog.cafe(fromId) else { throw CatalogError(field: "from", problem: "no café has id \"\(fromId)\"") }
        guard let to = catalog.cafe(toId) else { throw CatalogError(field: "to", problem: "no café has id \"\(toId)\"") }
        for cafe in [from, to] where cafe.stations.isEmpty {
            throw CatalogError(field: "cafes (\(cafe.id)).stations", problem: "the walk needs a station for the beacon's minor")
        }
        metresPerDegreeLongitude = Self.metresPerDegree * cos(from.latitude * .pi / 180)
        let east = (to.longitude - from.longitude) * metresPerDegreeLongitude
        let north = (to.latitude - from.latitude) * Self.metresPerDegree
        let apart = (east * east + north * north).squareRoot()
        guard apart > 2 * Self.counterMetres else {
            throw CatalogError(field: "to", problem: "\(toId) is \(apart) m from \(fromId); the walk needs two cafés apart")
        }
        self.from = from
        self.to = to
        self.seed = seed
        forward = (east / apart, north / apart)
        side = (north / apart, -east / apart)
        beacons = [(from, 0.0), (to, apart)].map { cafe, along in
            Beacon(cafeId: cafe.id, uuid: catalog.beaconUUID.lowercased(), major: cafe.beaconMajor, minor: cafe.stations[0].minor, along: along)
        }

        let plan: [(Leg, Double, Double, Double)] = [   // leg, from, to, speed (0: standing)
            (.approaching, -Self.carParkMetres, -Self.counterMetres, Self.walkingSpeed),
            (.atFrom, -Self.counterMetres, -Self.counterMetres, 0),
            (.between, -Self.counterMetres, apart - Self.counterMetres, Self.strollingSpeed),
            (.atTo, apart - Self.counterMetres, apart - Self.counterMetres, 0),
            (.leaving, apart - Self.counterMetres, apart + Self.carParkMetres, Self.walkingSpeed),
            (.away, apart + Self.carParkMetres, apart + Self.carParkMetres, 0),
        ]
        var legs: [(leg: Leg, start: Double, seconds: Double, from: Double, to: Double)] = []
        var clock = 0.0
        for (leg, start, end, speed) in plan {
            let seconds = speed > 0 ? (end - start) / speed : (leg == .away ? Self.awaySeconds : Self.counterSeconds)
            legs.append((leg, clock, seconds, start, end))
            clock += seconds
        }
        self.legs = legs
        duration = Int(clock.rounded(.up))
    }

    /// Where the phone is at `second`, in metres along the path from `from`'s center.
    public func position(_ second: Int) -> Double {
        let t = Double(second)
        guard let current = legs.last(where: { $0.start <= t }) else { return legs[0].from }
        let done = min((t - current.start) / current.seconds, 1)
        return current.from + (current.to - current.from) * done
    }

    /// Which part of the walk `second` falls in.
    public func leg(_ second: Int) -> Leg {
        legs.last { $0.start <= Double(second) }?.leg ?? .approaching
    }

    /// The true distance from the phone to `beacon` at `second`, in metres.
    public func distance(_ second: Int, to beacon: Beacon) -> Double {
        let along = position(second) - beacon.along
        return (along * along + Self.sideMetres * Self.sideMetres).squareRoot()
    }

    /// One step per walk second; timestamps are start + second × scale (scale 1 = real time;
    /// 0.05 = 20× faster). The noise depends on the seed only, never on `start` or `scale`.
    public func steps(start: Timestamp, scale: Double = 1) -> [Step] {
        precondition(scale > 0, "a walk's time scale must be above 0")
        var random = SeededRandom(seed: seed)
        return (0..<duration).map { second in
            let at = start.adding(seconds: Double(second) * scale)
            var sightings: [RangingReport] = []
            for beacon in beacons {
                let metres = distance(second, to: beacon)
                guard metres <= Self.hearingMetres else { continue }
                let ideal = Double(Self.measuredPower) - 20 * log10(metres)
                // About one reading in twelve is unreadable (CLBeacon reports 0); the rest are ±3 dB off.
                let unreadable = random.integer(in: 0...11) == 0
                let noise = random.integer(in: -3...3)
                let rssi = unreadable ? 0 : min(-1, Int(ideal.rounded()) + noise)
                sightings.append(RangingReport(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor, rssi: rssi,
                                               measuredPower: Self.measuredPower, timestamp: at))
            }
            let status = second == 0 ? DeviceStatusReport(authorization: .always, foreground: true) : nil
            return Step(second: second, status: status, sightings: sightings, fixes: [fix(second, at: at, random: &random)])
        }
    }

    /// A GPS fix scattered around the true position: sigma is half the reported accuracy, which is
    /// 5–10 m outdoors and 15–30 m indoors.
    private func fix(_ second: Int, at: Timestamp, random: inout SeededRandom) -> FixReport {
        let indoors = beacons.contains { distance(second, to: $0) <= Self.indoorMetres }
        let accuracy = indoors ? 15 + 15 * random.unit() : 5 + 5 * random.unit()
        let (scatterEast, scatterNorth) = random.gaussianPair()
        let along = position(second)
        let east = forward.east * along + side.east * Self.sideMetres + scatterEast * accuracy / 2
        let north = forward.north * along + side.north * Self.sideMetres + scatterNorth * accuracy / 2
        return FixReport(latitude: from.latitude + north / Self.metresPerDegree, longitude: from.longitude + east / metresPerDegreeLongitude,
                         horizontalAccuracy: accuracy, precise: true, timestamp: at)
    }
}
