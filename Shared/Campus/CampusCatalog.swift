import Foundation

/// The campus: every café, its beacons, hours, pickup windows and menu. Loaded from a JSON file
/// in `deploy/`, validated whole at start; a bad catalog stops the service with the field named.
public struct CampusCatalog: Codable, Sendable, Equatable {
    public var name: String
    /// The company's iBeacon proximity UUID.
    public var beaconUUID: String
    /// The café whose menu is shown when nothing else decides.
    public var defaultCafe: String
    public var cafes: [Cafe]
    /// The webhook receivers deliveries may go to (`WebhookEndpoint`); none when absent.
    public var webhooks: [WebhookEndpoint]?

    /// The café with this id.
    public func cafe(_ id: String) -> Cafe? { cafes.first { $0.id == id } }

    /// The café that issued this App Clip code URL.
    public func cafe(clipCode url: String) -> Cafe? { cafes.first { $0.clipCodes.contains(url) } }

    /// The café whose beacons carry this major.
    public func cafe(major: Int) -> Cafe? { cafes.first { $0.beaconMajor == major } }
}

/// One café or coffee station.
public struct Cafe: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var latitude: Double
    public var longitude: Double
    /// App Clip location confirmation radius in metres (at most 500).
    public var confirmationRadius: Double
    /// The App Clip code URLs this café's counters carry (App Clip Codes, NFC tags, QR codes).
    /// An App Clip order names the one it was launched from.
    public var clipCodes: [String]
    /// The iBeacon major value of this café's beacons.
    public var beaconMajor: Int
    public var stations: [Station]
    /// IANA time zone, e.g. "America/Los_Angeles".
    public var timeZone: String
    /// The café's own locale, e.g. "en_US" (kitchen screens, receipts).
    public var locale: String
    /// ISO 4217 code of every price on the menu.
    public var currency: String
    public var hours: [OpeningHours]
    public var pickup: PickupPolicy
    public var menu: [MenuItem]
    /// The circle around the café whose entering tells the kitchen a customer is on the way
    /// (region-monitor's `<id>.approach` condition), with the walk from its edge to the counter.
    /// Nil: the café is paced only by arrival at its beacons.
    public var approach: ApproachArea?
    /// Whether the kitchen paces this café's app orders by where the customer is (default true);
    /// false fires them by the pickup window alone.
    public var pacing: Bool?

    /// Whether the kitchen paces this café's app orders by the customer's approach and arrival.
    public var isPaced: Bool { pacing ?? true }

    public func item(_ id: String) -> MenuItem? { menu.first { $0.id == id } }
    public func station(minor: Int) -> Station? { stations.first { $0.minor == minor } }
}

/// A place inside a café where food is made, identified by its beacon's minor value.
public struct Station: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var minor: Int
}

/// Opening hours on some weekdays, in the café's local time. `close` may be "24:00".
public struct OpeningHours: Codable, Sendable, Equatable {
    /// ISO weekdays: 1 = Monday … 7 = Sunday.
    public var days: [Int]
    /// "HH:MM", local.
    public var open: String
    public var close: String

    /// Minutes after local midnight.
    public var openMinute: Int { Self.minutes(open) ?? 0 }
    public var closeMinute: Int { Self.minutes(close) ?? 0 }

    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
              let h = Int(parts[0]), let m = Int(parts[1]), (0...24).contains(h), (0..<60).contains(m), h * 60 + m <= 1440
        else { return nil }
        return h * 60 + m
    }
}

/// How pickup is spread out: fixed-length windows, each with room for `capacity` orders.
public struct PickupPolicy: Codable, Sendable, Equatable {
    public var windowMinutes: Int
    public var capacity: Int
    /// How long after a window ends an uncollected order becomes a no-show.
    public var graceMinutes: Int
}

/// A dish or drink, priced in the currency's minor units, made at one station.
public struct MenuItem: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var price: Int64
    public var station: String
    /// Seconds the station needs to make one (the kitchen fires a ticket its longest prep time
    /// before the order's target ready time).
    public var prepSeconds: Int
    public var modifiers: [Modifier]

    /// Seconds to make one with these modifiers: the item's prep time plus what each adds.
    public func prepSeconds(modifiers chosen: [String]) -> Int {
        prepSeconds + modifiers.filter { chosen.contains($0.id) }.reduce(0) { $0 + ($1.prepSeconds ?? 0) }
    }
}

/// An option on an item ("oat milk"), with the amount it adds in minor units.
public struct Modifier: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var price: Int64
    /// Seconds it adds to the item's prep time (none when left out).
    public var prepSeconds: Int?
}

/// A café's approach area: a circle around the café, wider than its confirmation radius, and the
/// usual walk from its edge to the counter.
public struct ApproachArea: Codable, Sendable, Equatable {
    /// Metres from the café's center.
    public var radius: Double
    /// Seconds a customer usually takes from the circle's edge to the counter.
    public var walkSeconds: Int

    public init(radius: Double, walkSeconds: Int) {
        self.radius = radius
        self.walkSeconds = walkSeconds
    }
}
