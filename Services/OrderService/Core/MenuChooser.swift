import Campus
import Messages

/// Picks the café whose menu a user sees, trying in order: a specific café they chose → the café
/// of their nearest near/immediate beacon → the nearest open café by a fresh location → the last
/// café they used → the campus default. The answer names the rule that chose.
public enum MenuChooser {
    /// What is known of the user and their device when the menu is asked for.
    public struct Inputs: Sendable {
        public var preference: LocationPreference
        /// The beacon major of the device's nearest near/immediate beacon, if any.
        public var nearestBeaconMajor: Int?
        /// The nearest open café by a fresh location, as region-monitor answered it (never coordinates).
        public var nearestCafeByLocation: String?
        public var lastCafe: String?

        public init(preference: LocationPreference, nearestBeaconMajor: Int?, nearestCafeByLocation: String?, lastCafe: String?) {
            self.preference = preference
            self.nearestBeaconMajor = nearestBeaconMajor
            self.nearestCafeByLocation = nearestCafeByLocation
            self.lastCafe = lastCafe
        }
    }

    /// Whether a rule before "nearest by location" decides (so region-monitor need not be asked).
    public static func decidesBeforeLocation(_ inputs: Inputs, catalog: CampusCatalog) -> Bool {
        if case .cafe(let id) = inputs.preference, catalog.cafe(id) != nil { return true }
        if let major = inputs.nearestBeaconMajor, catalog.cafe(major: major) != nil { return true }
        return false
    }

    /// The café whose menu the user sees, and the rule that chose it.
    public static func choose(_ inputs: Inputs, catalog: CampusCatalog) -> (cafe: Cafe, rule: MenuRule) {
        if case .cafe(let id) = inputs.preference, let cafe = catalog.cafe(id) { return (cafe, .preferredCafe) }
        if let major = inputs.nearestBeaconMajor, let cafe = catalog.cafe(major: major) { return (cafe, .nearestBeacon) }
        if let id = inputs.nearestCafeByLocation, let cafe = catalog.cafe(id) { return (cafe, .nearestByLocation) }
        if let id = inputs.lastCafe, let cafe = catalog.cafe(id) { return (cafe, .lastCafe) }
        // The catalog is validated at start: the default café exists.
        return (catalog.cafe(catalog.defaultCafe) ?? catalog.cafes[0], .campusDefault)
    }
}
