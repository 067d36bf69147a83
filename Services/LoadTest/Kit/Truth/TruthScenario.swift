import Campus
import Foundation

/// A scenario of `load-test truth`: where one phone is, second by second, among the beacons of
/// its floor plan (metres, east and north of Caffè Macs' centre), and which café is the truth.
public struct TruthScenario: Sendable {
    /// The kinds of phone, each a different question to the nearest-café rule.
    public enum Kind: String, CaseIterable, Sendable, Codable {
        /// Walks up to the coffee station's beacon, stands a while, leaves out of range.
        case walkUp = "walk-up"
        /// Stands 1.9 m from one counter's beacon and 5.3 m from the other café's (beacons 3.4 m apart).
        case counter
        /// Stands 1.9 m in front of one of two counters whose beacons are 4 m apart.
        case counter4m = "counter-4m"
        /// Stands at one of the 4 m counters, then walks to the other halfway through.
        case walkBetween = "walk-between"
        /// Walks past the coffee station's beacon 6 m away (9.4 m from Caffè Macs' counter) without stopping.
        case passBy = "pass-by"
        /// Sits at a Caffè Macs table 6 m from its salad-bar beacon, with five times the dips.
        case sitInside = "sit-inside"
    }

    /// A beacon on the floor plan.
    public struct Beacon: Sendable, Equatable {
        public var cafe: String
        public var major: Int
        public var minor: Int
        public var x: Double
        public var y: Double
    }

    public let kind: Kind
    public let beacons: [Beacon]
    /// (time, x, y): the phone walks in straight lines between them; before the first and after
    /// the last it stands.
    public let waypoints: [(t: Double, x: Double, y: Double)]
    /// How much more often than the model's rate the body blocks the signal.
    public let dipScale: Double
    /// The café the phone is truly at once within `arrivalRadius` of its beacon.
    public static let arrivalRadius = 2.0
    /// Within this of a beacon its café is the only right answer.
    public static let truthRadius = 3.0

    /// The floor plan with the two cafés' counter beacons `gap` metres apart on the x axis.
    static func plan(gap: Double) -> [Beacon] {
        [Beacon(cafe: "macs-coffee", major: 2, minor: 1, x: 0, y: 0),
         Beacon(cafe: "caffe-macs", major: 1, minor: 1, x: gap, y: 0),
         Beacon(cafe: "caffe-macs", major: 1, minor: 2, x: gap + 8, y: 6),
         Beacon(cafe: "caffe-macs", major: 1, minor: 3, x: gap + 8, y: -6)]
    }

    /// Phone `index` of `kind` in a run of `duration` seconds whose beacon exit timeout is `exit`.
    public init(kind: Kind, index: Int, duration: Double, exit: Double, random: inout SeededRandom) {
        self.kind = kind
        let start = random.unit() * min(5, duration / 10)
        let side = index % 2 == 0
        switch kind {
        case .walkUp:
            beacons = Self.plan(gap: 3.4)
            let arrive = start + 29 / 1.3, leave = max(arrive + 10, duration - exit - 20)
            waypoints = [(start, -30, 0), (arrive, -1, 0), (leave, -1, 0), (leave + 12, -60, 0), (leave + 12.01, -400, 0)]
            dipScale = 1
        case .counter:
            beacons = Self.plan(gap: 3.4)
            waypoints = [(0, side ? -1.9 : 5.3, 0)]
            dipScale = 1
        case .counter4m:
            beacons = Self.plan(gap: 4)
            waypoints = [(0, side ? 0 : 4, 1.9)]
            dipScale = 1
        case .walkBetween:
            beacons = Self.plan(gap: 4)
            let from = side ? 0.0 : 4.0, to = 4 - from, middle = duration / 2 + start
            waypoints = [(0, from, 1.9), (middle, from, 1.9), (middle + 4, to, 1.9)]
            dipScale = 1
        case .passBy:
            beacons = Self.plan(gap: 3.4)
            let begin = start + random.unit() * max(0, duration - 50)
            waypoints = [(0, -6, -400), (begin, -6, -400), (begin + 0.01, -6, -30), (begin + 0.01 + 60 / 1.3, -6, 30), (begin + 0.02 + 60 / 1.3, -6, 400)]
            dipScale = 1
        case .sitInside:
            beacons = Self.plan(gap: 3.4)
            waypoints = [(0, 3.4 + 8 - 6 * 0.6, 6 - 6 * 0.8)]
            dipScale = 5
        }
    }

    /// Where the phone is at `t`.
    public func position(at t: Double) -> (x: Double, y: Double) {
        guard let first = waypoints.first, t > first.t else { return (waypoints[0].x, waypoints[0].y) }
        for (a, b) in zip(waypoints, waypoints.dropFirst()) where t < b.t {
            let f = (t - a.t) / max(1e-9, b.t - a.t)
            return (a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f)
        }
        let last = waypoints[waypoints.count - 1]
        return (last.x, last.y)
    }

    /// Metres from the phone to beacon `index` at `t`.
    public func metres(to index: Int, at t: Double) -> Double {
        let p = position(at: t), b = beacons[index]
        return ((p.x - b.x) * (p.x - b.x) + (p.y - b.y) * (p.y - b.y)).squareRoot()
    }

    /// The café of the nearest beacon within `radius` at `t`, else nil.
    public func cafe(at t: Double, within radius: Double) -> String? {
        let nearest = beacons.indices.min { metres(to: $0, at: t) < metres(to: $1, at: t) }
        return nearest.flatMap { metres(to: $0, at: t) <= radius ? beacons[$0].cafe : nil }
    }

    /// The first time on the `step` grid at which the phone is within `arrivalRadius` of a beacon, and its café.
    public func arrival(until end: Double, step: Double) -> (t: Double, cafe: String)? {
        var t = 0.0
        while t <= end {
            if let cafe = cafe(at: t, within: Self.arrivalRadius) { return (t, cafe) }
            t += step
        }
        return nil
    }

    /// The mix of a run of `phones`: walk-ups, counter phones of both kinds, walks between,
    /// passers-by and sitters in fixed proportions (every kind at least once when phones ≥ 6).
    public static func mix(phones: Int) -> [Kind] {
        let weights: [(Kind, Int)] = [(.walkUp, 3), (.counter, 4), (.counter4m, 4), (.walkBetween, 3), (.passBy, 3), (.sitInside, 3)]
        let total = weights.reduce(0) { $0 + $1.1 }
        return (0..<phones).map { i in
            var slot = i % total
            for (kind, weight) in weights {
                if slot < weight { return kind }
                slot -= weight
            }
            return .counter
        }.enumerated().map { i, kind in phones >= 6 && i < Kind.allCases.count ? Kind.allCases[i] : kind }
    }
}
