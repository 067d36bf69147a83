import Foundation
import Messages

extension CampusCatalog {
    /// The largest radius App Clip location confirmation accepts (Apple's limit).
    public static let maxConfirmationRadius = 500.0
    /// The widest approach area: beyond it a walk says little about when someone arrives.
    public static let maxApproachRadius = 3000.0
    /// Prep times and walks are bounded: an hour to make one item, half an hour to walk in.
    public static let prepSecondsRange = 1...3600
    public static let modifierPrepSecondsRange = 0...1800
    public static let walkSecondsRange = 10...1800

    /// Reads and validates the catalog at `path`.
    public static func load(path: String) throws -> CampusCatalog {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CatalogError(field: path, problem: "cannot read the file")
        }
        return try decode(data)
    }

    /// Decodes and validates a catalog; the error names the first bad field.
    public static func decode(_ data: Data) throws -> CampusCatalog {
        // Before Foundation's decoder, which recurses once per level.
        guard !Wire.nestsTooDeep(data) else {
            throw CatalogError(field: "(document)", problem: "nests arrays and objects more than \(Wire.maxNestingDepth) levels deep")
        }
        // A name given twice: Foundation would keep the first without a word.
        if let member = Wire.repeatedMember(in: data) {
            throw CatalogError(field: member, problem: "is given more than once")
        }
        let catalog: CampusCatalog
        do {
            catalog = try JSONDecoder().decode(CampusCatalog.self, from: data)
        } catch let error as DecodingError {
            throw CatalogError(field: Self.path(of: error), problem: Self.problem(of: error))
        }
        try catalog.validate()
        return catalog
    }

    /// Checks every rule a café operation relies on.
    public func validate() throws {
        func fail(_ field: String, _ problem: String) -> CatalogError { CatalogError(field: field, problem: problem) }
        guard UUID(uuidString: beaconUUID) != nil else { throw fail("beaconUUID", "\"\(beaconUUID)\" is not a UUID") }
        guard !cafes.isEmpty else { throw fail("cafes", "at least one café is needed") }
        guard cafe(defaultCafe) != nil else { throw fail("defaultCafe", "no café has id \"\(defaultCafe)\"") }
        try validateWebhooks()
        var ids = Set<String>(), majors = Set<Int>(), clipCodes = Set<String>()
        let currencies = Set(Locale.commonISOCurrencyCodes)
        for (index, cafe) in cafes.enumerated() {
            let at = "cafes[\(index)] (\(cafe.id))"
            guard Self.isIdentifier(cafe.id) else { throw fail("cafes[\(index)].id", "\"\(cafe.id)\" must be 1–40 of a-z, 0-9 and -") }
            guard ids.insert(cafe.id).inserted else { throw fail("\(at).id", "duplicate café id") }
            guard !cafe.name.isEmpty else { throw fail("\(at).name", "must not be empty") }
            guard (-90...90).contains(cafe.latitude) else { throw fail("\(at).latitude", "\(cafe.latitude) is outside -90…90") }
            guard (-180...180).contains(cafe.longitude) else { throw fail("\(at).longitude", "\(cafe.longitude) is outside -180…180") }
            guard cafe.confirmationRadius > 0, cafe.confirmationRadius <= Self.maxConfirmationRadius else {
                throw fail("\(at).confirmationRadius", "\(cafe.confirmationRadius) m for café \(cafe.id) must be above 0 and at most \(Int(Self.maxConfirmationRadius)) m")
            }
            for (c, code) in cafe.clipCodes.enumerated() {
                guard Self.isClipURL(code) else { throw fail("\(at).clipCodes[\(c)]", "\"\(code.prefix(80))\" must be an https URL of at most 200 characters") }
                guard clipCodes.insert(code).inserted else { throw fail("\(at).clipCodes[\(c)]", "\(code) is issued twice") }
            }
            guard (0...65535).contains(cafe.beaconMajor) else { throw fail("\(at).beaconMajor", "\(cafe.beaconMajor) is outside 0…65535") }
            guard majors.insert(cafe.beaconMajor).inserted else { throw fail("\(at).beaconMajor", "major \(cafe.beaconMajor) is used by another café") }
            guard TimeZone(identifier: cafe.timeZone) != nil else { throw fail("\(at).timeZone", "\"\(cafe.timeZone)\" is not an IANA time zone") }
            guard !cafe.locale.isEmpty, Locale.availableIdentifiers.contains(cafe.locale) else { throw fail("\(at).locale", "\"\(cafe.locale)\" is not a known locale") }
            guard cafe.currency.count == 3, currencies.contains(cafe.currency) else { throw fail("\(at).currency", "\"\(cafe.currency)\" is not an ISO 4217 code") }
            var minors = Set<Int>(), stationIDs = Set<String>()
            for (s, station) in cafe.stations.enumerated() {
                guard (0...65535).contains(station.minor) else { throw fail("\(at).stations[\(s)].minor", "\(station.minor) is outside 0…65535") }
                guard minors.insert(station.minor).inserted else { throw fail("\(at).stations[\(s)].minor", "minor \(station.minor) is used twice") }
                guard Self.isIdentifier(station.id), stationIDs.insert(station.id).inserted else { throw fail("\(at).stations[\(s)].id", "\"\(station.id)\" is not a unique identifier") }
            }
            guard !cafe.stations.isEmpty else { throw fail("\(at).stations", "at least one station is needed") }
            for (h, hours) in cafe.hours.enumerated() {
                guard !hours.days.isEmpty, hours.days.allSatisfy({ (1...7).contains($0) }) else { throw fail("\(at).hours[\(h)].days", "weekdays are 1 (Monday) … 7 (Sunday)") }
                guard let open = OpeningHours.minutes(hours.open) else { throw fail("\(at).hours[\(h)].open", "\"\(hours.open)\" is not HH:MM") }
                guard let close = OpeningHours.minutes(hours.close) else { throw fail("\(at).hours[\(h)].close", "\"\(hours.close)\" is not HH:MM") }
                guard open < close else { throw fail("\(at).hours[\(h)]", "opens at \(hours.open), after it closes at \(hours.close)") }
            }
            guard (1...240).contains(cafe.pickup.windowMinutes), 1440 % cafe.pickup.windowMinutes == 0 else {
                throw fail("\(at).pickup.windowMinutes", "\(cafe.pickup.windowMinutes) must divide a day and be 1…240")
            }
            guard (1...10_000).contains(cafe.pickup.capacity) else { throw fail("\(at).pickup.capacity", "\(cafe.pickup.capacity) must be 1…10000") }
            guard (0...240).contains(cafe.pickup.graceMinutes) else { throw fail("\(at).pickup.graceMinutes", "\(cafe.pickup.graceMinutes) must be 0…240") }
            if let approach = cafe.approach {
                guard approach.radius > cafe.confirmationRadius, approach.radius <= Self.maxApproachRadius else {
                    throw fail("\(at).approach.radius", "\(approach.radius) m must be wider than the confirmation radius (\(cafe.confirmationRadius) m) and at most \(Int(Self.maxApproachRadius)) m")
                }
                guard Self.walkSecondsRange.contains(approach.walkSeconds) else {
                    throw fail("\(at).approach.walkSeconds", "\(approach.walkSeconds) must be \(Self.walkSecondsRange.lowerBound)…\(Self.walkSecondsRange.upperBound)")
                }
            }
            var itemIDs = Set<String>()
            for (i, item) in cafe.menu.enumerated() {
                let itemAt = "\(at).menu[\(i)]"
                guard Self.isIdentifier(item.id), itemIDs.insert(item.id).inserted else { throw fail("\(itemAt).id", "\"\(item.id)\" is not a unique identifier") }
                guard !item.name.isEmpty else { throw fail("\(itemAt).name", "must not be empty") }
                guard item.price >= 0, item.price <= 10_000_000 else { throw fail("\(itemAt).price", "\(item.price) must be 0…10000000 minor units") }
                guard stationIDs.contains(item.station) else { throw fail("\(itemAt).station", "no station \"\(item.station)\" in café \(cafe.id)") }
                guard Self.prepSecondsRange.contains(item.prepSeconds) else {
                    throw fail("\(itemAt).prepSeconds", "\(item.prepSeconds) must be \(Self.prepSecondsRange.lowerBound)…\(Self.prepSecondsRange.upperBound) seconds")
                }
                var modifierIDs = Set<String>()
                for (m, modifier) in item.modifiers.enumerated() {
                    guard Self.isIdentifier(modifier.id), modifierIDs.insert(modifier.id).inserted else { throw fail("\(itemAt).modifiers[\(m)].id", "\"\(modifier.id)\" is not a unique identifier") }
                    guard modifier.price >= 0, modifier.price <= 10_000_000 else { throw fail("\(itemAt).modifiers[\(m)].price", "\(modifier.price) must be 0…10000000 minor units") }
                    if let extra = modifier.prepSeconds, !Self.modifierPrepSecondsRange.contains(extra) {
                        throw fail("\(itemAt).modifiers[\(m)].prepSeconds", "\(extra) must be \(Self.modifierPrepSecondsRange.lowerBound)…\(Self.modifierPrepSecondsRange.upperBound) seconds")
                    }
                }
            }
            guard !cafe.menu.isEmpty else { throw fail("\(at).menu", "at least one item is needed") }
        }
    }

    /// An App Clip invocation URL: https, a host, no spaces, at most 200 characters.
    static func isClipURL(_ text: String) -> Bool {
        guard text.utf8.count <= 200, !text.contains(" "), let url = URL(string: text), url.scheme == "https", let host = url.host, !host.isEmpty else { return false }
        return true
    }

    static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 40 && text.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }
    }

    static func path(of error: DecodingError) -> String {
        let keys: [CodingKey]
        switch error {
        case .keyNotFound(let key, let context): keys = context.codingPath + [key]
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context): keys = context.codingPath
        @unknown default: keys = []
        }
        let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "(document)" : text)
    }

    static func problem(of error: DecodingError) -> String {
        switch error {
        case .keyNotFound: "is missing"
        case .typeMismatch(let type, _): "has the wrong type (expected \(type))"
        case .valueNotFound: "must not be null"
        case .dataCorrupted(let context): context.debugDescription
        @unknown default: "\(error)"
        }
    }
}
