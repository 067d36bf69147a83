import Campus
import Foundation
import Messages

/// What `load-test pacing` simulates, decided before it starts and the same for a seed: a twin
/// campus (two identical cafés 2 km apart, one paced by the customer's approach, one by the
/// window alone) and customers in twins, each pair ordering the same thing for the same window
/// and walking the same walk to its own café.
struct PacingPlan {
    /// The sizes of a run.
    struct Scale {
        var customers = 40
        var windowMinutes = 5
        /// The approach circle's radius; the catalog's walk is this at 1.3 m/s.
        var approachRadius = 300.0
        /// How far outside the approach circle a walk starts.
        var extraDistance = 60.0...300.0
        /// Walking speeds, m/s: slow strollers to brisk walkers.
        var speed = 1.0...1.6
        /// Multiplies the arrival offsets (1: minutes; a quick run shrinks them to seconds).
        var offsetScale = 1.0
        /// The menu's prep times, seconds.
        var prep: [Int] = [300, 240, 180, 120, 90, 60]

        /// A run of a minute or two for a test: one-minute windows, short walks, seconds of prep.
        static let quick = Scale(customers: 3, windowMinutes: 1, approachRadius: 60, extraDistance: 10...25, speed: 1.3...1.6,
                                 offsetScale: 0.1, prep: [20, 15, 10, 8, 6, 5])

        var walkSeconds: Int { max(10, Int((approachRadius / 1.3).rounded())) }
    }

    /// One customer: the order (items by index into the menu) and the walk.
    struct Customer {
        var index: Int
        var items: [Int]
        /// Which of the run's windows (0 or 1): every other customer orders for the second.
        var window: Int
        /// Seconds from the window's start to reaching the counter (negative: early).
        var arrivalOffset: Double
        var speed: Double
        /// Metres from the café's center where the walk starts.
        var startDistance: Double
        var walkSeconds: Double { startDistance / speed }
    }

    static let paced = "paced"
    static let unpaced = "unpaced"
    static let beaconUUID = "6E2A1B3C-5D4E-4F60-8A7B-9C0D1E2F3A4B"
    static let latitude = [paced: 37.40, unpaced: 37.42]
    static let longitude = -122.03
    static let metresPerDegree = 111_320.0

    let scale: Scale
    let customers: [Customer]

    init(scale: Scale, seed: UInt64) {
        self.scale = scale
        var random = SeededRandom(seed: seed)
        customers = (0..<scale.customers).map { index in
            let items = (0..<random.integer(in: 1...3)).map { _ in random.integer(in: 0...(scale.prep.count - 1)) }
            return Customer(index: index, items: Array(Set(items)).sorted(), window: index % 2,
                            arrivalOffset: Self.arrivalOffset(&random) * scale.offsetScale,
                            speed: scale.speed.lowerBound + random.unit() * (scale.speed.upperBound - scale.speed.lowerBound),
                            startDistance: scale.approachRadius + scale.extraDistance.lowerBound
                                + random.unit() * (scale.extraDistance.upperBound - scale.extraDistance.lowerBound))
        }
    }

    /// When a customer reaches the counter, from the window's start, in seconds: most come
    /// around the start (±1.5 min), some late (4 min, ±1.5), a few early (4 min, ±1): people
    /// leave their desks when the meeting ends, not when the window opens.
    static func arrivalOffset(_ random: inout SeededRandom) -> Double {
        let roll = random.unit()
        if roll < 0.7 { return 90 * random.gaussian() }
        if roll < 0.9 { return 240 + 90 * random.gaussian() }
        return -240 + 60 * random.gaussian()
    }

    /// The twin campus as a catalog file's JSON.
    func catalog() throws -> Data {
        let menu: [[String: Any]] = scale.prep.enumerated().map { index, prep in
            ["id": "item-\(index)", "name": "Item \(index) (\(prep) s)", "price": 500 + 100 * index, "station": index % 2 == 0 ? "grill" : "bar",
             "prepSeconds": prep, "modifiers": [] as [Any]]
        }
        let cafes: [[String: Any]] = [Self.paced, Self.unpaced].enumerated().map { index, id in
            ["id": id, "name": id == Self.paced ? "Paced café" : "Unpaced café", "latitude": Self.latitude[id]!, "longitude": Self.longitude,
             "confirmationRadius": 50, "clipCodes": [] as [Any], "beaconMajor": index + 1,
             "stations": [["id": "grill", "name": "Grill", "minor": 1], ["id": "bar", "name": "Bar", "minor": 2]],
             "timeZone": "UTC", "locale": "en_US", "currency": "USD",
             "hours": [["days": [1, 2, 3, 4, 5, 6, 7], "open": "00:00", "close": "24:00"]],
             "pickup": ["windowMinutes": scale.windowMinutes, "capacity": 10_000, "graceMinutes": 30],
             "menu": menu, "approach": ["radius": scale.approachRadius, "walkSeconds": scale.walkSeconds], "pacing": id == Self.paced]
        }
        let object: [String: Any] = ["name": "Pacing twins", "beaconUUID": Self.beaconUUID, "defaultCafe": Self.paced, "cafes": cafes]
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    }

    /// Where a customer walking to `cafe` is, `distance` metres north of its center.
    static func fix(cafe: String, distance: Double, at time: Timestamp) -> FixReport {
        FixReport(latitude: latitude[cafe]! + distance / metresPerDegree, longitude: longitude, horizontalAccuracy: 5, precise: true, timestamp: time)
    }

    /// The café's grill beacon heard at the counter.
    static func ranging(cafe: String, at time: Timestamp) -> RangingReport {
        RangingReport(uuid: beaconUUID, major: cafe == paced ? 1 : 2, minor: 1, rssi: -55, measuredPower: -59, timestamp: time)
    }

    /// The `q` quantile (0…1) of `values`, nearest rank; nil when empty.
    static func quantile(_ values: [Double], _ q: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))]
    }
}
