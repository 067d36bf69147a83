import Campus
import Foundation
import Messages

/// The cafés as phones meet them: each café's beacon major and station minors, and which cafés
/// are close enough that a phone in one hears the other's beacons faintly (Caffè Macs and its
/// coffee station, 40 m apart).
struct CampusLayout {
    struct Place {
        var id: String
        var major: Int
        var minors: [Int]
        var latitude: Double
        var longitude: Double
    }

    let uuid: String
    let places: [Place]
    /// The campus default café, where most phones start.
    let home: Int
    /// For each café, the cafés within `hearingRange` metres and how far they are.
    let neighbours: [[(place: Int, metres: Double)]]
    /// Beacons further than this are not heard at all.
    static let hearingRange = 100.0

    init(catalog: CampusCatalog) {
        uuid = catalog.beaconUUID
        let places = catalog.cafes.filter { !$0.stations.isEmpty }.map {
            Place(id: $0.id, major: $0.beaconMajor, minors: $0.stations.map(\.minor), latitude: $0.latitude, longitude: $0.longitude)
        }
        var near: [[(place: Int, metres: Double)]] = []
        for (i, a) in places.enumerated() {
            near.append(places.indices.compactMap { j in
                guard j != i else { return nil }
                let metres = Self.metres(a, places[j])
                return metres <= Self.hearingRange ? (j, metres) : nil
            })
        }
        self.places = places
        neighbours = near
        home = places.firstIndex { $0.id == catalog.defaultCafe } ?? 0
    }

    /// Great-circle distance (haversine), metres.
    static func metres(_ a: Place, _ b: Place) -> Double {
        let r = 6_371_000.0, rad = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * rad, dLon = (b.longitude - a.longitude) * rad
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.latitude * rad) * cos(b.latitude * rad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * r * asin(min(1, h.squareRoot()))
    }
}

/// One beacon heard in one ranging report.
struct HeardBeacon {
    var major: Int
    var minor: Int
    var rssi: Int
}

/// A café condition that this report should flip to satisfied (`certain`), or might, because the
/// phone was last heard there about one exit timeout ago (`certain == false`: not counted as loss).
struct Arrival {
    var device: Int
    var place: Int
    var certain: Bool
}

/// One phone's ranging report at schedule time `time` (seconds since the run's start).
struct PhoneReport {
    var device: Int
    var time: Double
    var beacons: [HeardBeacon]
    var arrivals: [Arrival]
}

/// The simulated phones: each stands at a station of a café for a while (ranging its beacons at a
/// realistic RSSI around the calibrated power), then walks to another café, preferring the one
/// next door. Deterministic for a seed; every time is schedule time, never the wall clock, so
/// the model does not depend on how fast the sender keeps up.
final class PhoneFleet {
    struct Phone {
        let id: String
        let shard: Int
        let always: Bool
        var place: Int
        var minor: Int
        /// Metres from the beacon of the station the phone stands at.
        var metres: Double
        /// Walking (no beacons) until then.
        var arriveAt: Double
        var leaveAt: Double
        /// Schedule time of the last report that heard each café, or -infinity.
        var lastHeard: [Double]
    }

    /// Calibrated RSSI at 1 m, as iBeacons advertise it.
    static let measuredPower = -59
    /// A record becomes unsatisfied within a tick (0.5 s) after the exit timeout; allow for a
    /// busy region-monitor too. Between `exit - early` and `exit + late` the outcome is uncertain.
    static let earlyMargin = 1.0
    static let lateMargin = 2.0

    let layout: CampusLayout
    let exitTimeout: Double
    let dwellMean: Double
    private(set) var phones: [Phone] = []
    private var cursor = 0
    private var random: SeededRandom

    init(count: Int, runID: String, shards: Int, layout: CampusLayout, exitTimeout: Double, dwellMean: Double, seed: UInt64) {
        self.layout = layout
        self.exitTimeout = exitTimeout
        self.dwellMean = dwellMean
        random = SeededRandom(seed: seed)
        phones.reserveCapacity(count)
        for index in 0..<count {
            let id = "\(runID)-p\(index)"
            let place = startingPlace()
            phones.append(Phone(id: id, shard: Topic.shard(of: id, count: shards), always: random.chance(0.7), place: place,
                                minor: pickMinor(place), metres: standingDistance(), arriveAt: 0,
                                leaveAt: random.exponential(mean: dwellMean),
                                lastHeard: Array(repeating: -.infinity, count: layout.places.count)))
        }
    }

    /// The status a phone sends before anything else: Always, or When In Use with the app in front.
    func status(of index: Int) -> DeviceStatusReport {
        DeviceStatusReport(authorization: phones[index].always ? .always : .whenInUse, foreground: true)
    }

    /// The next phone's report at schedule time `time`, round robin over the phones that are not
    /// walking. Nil when every phone is walking at that moment.
    func nextReport(at time: Double) -> PhoneReport? {
        for _ in 0..<phones.count {
            let index = cursor
            cursor = (cursor + 1) % phones.count
            if let report = report(for: index, at: time) { return report }
        }
        return nil
    }

    private func report(for index: Int, at time: Double) -> PhoneReport? {
        if time < phones[index].arriveAt { return nil }
        if time >= phones[index].leaveAt {
            walk(index, from: time)
            return nil
        }
        var phone = phones[index]
        let place = layout.places[phone.place]
        var beacons = [HeardBeacon(major: place.major, minor: phone.minor, rssi: rssi(metres: max(0.2, phone.metres + random.gaussian() * 0.3)))]
        for minor in place.minors where minor != phone.minor && random.chance(0.3) {
            beacons.append(HeardBeacon(major: place.major, minor: minor, rssi: rssi(metres: 6 + random.unit() * 9)))
        }
        var heardPlaces = [phone.place]
        for neighbour in layout.neighbours[phone.place] where random.chance(0.05) {
            let other = layout.places[neighbour.place]
            beacons.append(HeardBeacon(major: other.major, minor: other.minors[0], rssi: rssi(metres: neighbour.metres)))
            heardPlaces.append(neighbour.place)
        }
        var arrivals: [Arrival] = []
        for heard in heardPlaces {
            let gap = time - phone.lastHeard[heard]
            if gap >= exitTimeout + Self.lateMargin {
                arrivals.append(Arrival(device: index, place: heard, certain: true))
            } else if gap > exitTimeout - Self.earlyMargin {
                arrivals.append(Arrival(device: index, place: heard, certain: false))
            }
            phone.lastHeard[heard] = time
        }
        phones[index] = phone
        return PhoneReport(device: index, time: time, beacons: beacons, arrivals: arrivals)
    }

    /// Leaves the café: a few seconds out of range of every beacon, then a while at the next one.
    private func walk(_ index: Int, from time: Double) {
        let next = nextPlace(after: phones[index].place)
        phones[index].place = next
        phones[index].minor = pickMinor(next)
        phones[index].metres = standingDistance()
        phones[index].arriveAt = time + 1 + random.unit() * 3
        phones[index].leaveAt = phones[index].arriveAt + max(2, random.exponential(mean: dwellMean))
    }

    /// Most phones start at Caffè Macs or next door; the rest anywhere.
    private func startingPlace() -> Int {
        let count = layout.places.count
        let home = layout.home
        if count > 1, !layout.neighbours[home].isEmpty, random.chance(0.7) {
            return random.chance(0.55) ? home : layout.neighbours[home][0].place
        }
        return Int(random.next() % UInt64(count))
    }

    /// Next door with probability 0.6 when there is a next door, else any other café.
    private func nextPlace(after place: Int) -> Int {
        let count = layout.places.count
        guard count > 1 else { return place }
        let near = layout.neighbours[place]
        if !near.isEmpty, random.chance(0.6) { return near[Int(random.next() % UInt64(near.count))].place }
        let other = Int(random.next() % UInt64(count - 1))
        return other >= place ? other + 1 : other
    }

    private func pickMinor(_ place: Int) -> Int {
        let minors = layout.places[place].minors
        return minors[Int(random.next() % UInt64(minors.count))]
    }

    /// Standing at a counter: 0.3–3 m from its beacon (immediate or near).
    private func standingDistance() -> Double { 0.3 + random.unit() * 2.7 }

    /// Log-distance path loss (exponent 2) plus 3 dB of noise, as a phone reads it.
    private func rssi(metres: Double) -> Int {
        let value = Double(Self.measuredPower) - 20 * log10(metres) + random.gaussian() * 3
        return Int(min(-30, max(-100, value)).rounded())
    }
}
