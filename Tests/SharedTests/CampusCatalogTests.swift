import Campus
import Foundation
import Testing

@Suite("Campus catalog")
struct CampusCatalogTests {
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: try fixtureURL(name))
    }

    static func validObject() throws -> [String: Any] {
        try jsonObject(fixture("campus.json"))
    }

    @Test("the valid fixture loads with every café, station and item")
    func validFixture() throws {
        let catalog = try CampusCatalog.load(path: try fixtureURL("campus.json").path)
        #expect(catalog.name == "Apple Park campus")
        #expect(catalog.cafes.map(\.id) == ["macs", "macs-coffee"])
        let macs = try #require(catalog.cafe("macs"))
        #expect(macs.stations.map(\.id) == ["grill", "pizza"])
        #expect(macs.item("burger")?.price == 1150)
        #expect(macs.item("burger")?.modifiers.first?.id == "cheese")
        #expect(macs.station(minor: 2)?.id == "pizza")
        #expect(macs.hours.first?.openMinute == 420)
        #expect(macs.hours.first?.closeMinute == 900)
        #expect(catalog.cafe(major: 2)?.id == "macs-coffee")
        #expect(catalog.cafe(major: 99) == nil)
        #expect(catalog.cafe("nowhere") == nil)
        #expect(try CampusCatalog.decode(Self.fixture("campus.json")) == catalog)
    }

    @Test("each invalid fixture is refused with a CatalogError naming the field", arguments: [
        ("campus-radius-800.json", "cafes[1] (macs-coffee).confirmationRadius", "800.0 m for café macs-coffee must be above 0 and at most 500 m"),
        ("campus-unknown-currency.json", "cafes[0] (macs).currency", "\"XYZ\" is not an ISO 4217 code"),
        ("campus-bad-timezone.json", "cafes[0] (macs).timeZone", "\"Mars/Olympus_Mons\" is not an IANA time zone"),
        ("campus-unknown-station.json", "cafes[1] (macs-coffee).menu[0].station", "no station \"grill\" in café macs-coffee"),
        ("campus-duplicate-major.json", "cafes[1] (macs-coffee).beaconMajor", "major 1 is used by another café"),
        ("campus-missing-field.json", "cafes[1].timeZone", "is missing"),
    ])
    func invalidFixtures(file: String, field: String, problem: String) throws {
        let error = #expect(throws: CatalogError.self) { try CampusCatalog.load(path: try fixtureURL(file).path) }
        #expect(error == CatalogError(field: field, problem: problem))
        #expect(error?.description == "campus catalog: \(field): \(problem)")
    }

    /// One rule broken at a time, starting from the valid fixture.
    @Test("every validation rule names its field", arguments: [
        ("beaconUUID", "not-a-uuid", "beaconUUID"),
        ("defaultCafe", "elsewhere", "defaultCafe"),
        ("cafes", [String](), "cafes"),
        ("cafes.1.id", "Coffee Bar!", "cafes[1].id"),
        ("cafes.1.id", "macs", "cafes[1] (macs).id"),
        ("cafes.0.name", "", "cafes[0] (macs).name"),
        ("cafes.0.latitude", 91, "cafes[0] (macs).latitude"),
        ("cafes.0.longitude", -180.5, "cafes[0] (macs).longitude"),
        ("cafes.0.confirmationRadius", 0, "cafes[0] (macs).confirmationRadius"),
        ("cafes.0.confirmationRadius", 500.5, "cafes[0] (macs).confirmationRadius"),
        ("cafes.0.beaconMajor", 70_000, "cafes[0] (macs).beaconMajor"),
        ("cafes.0.locale", "zz_ZZ", "cafes[0] (macs).locale"),
        ("cafes.0.currency", "usd", "cafes[0] (macs).currency"),
        ("cafes.0.stations.1.minor", 1, "cafes[0] (macs).stations[1].minor"),
        ("cafes.0.stations.1.id", "grill", "cafes[0] (macs).stations[1].id"),
        ("cafes.0.stations", [String](), "cafes[0] (macs).stations"),
        ("cafes.0.hours.0.days", [0, 8], "cafes[0] (macs).hours[0].days"),
        ("cafes.0.hours.0.open", "7:00", "cafes[0] (macs).hours[0].open"),
        ("cafes.0.hours.0.close", "24:30", "cafes[0] (macs).hours[0].close"),
        ("cafes.0.hours.0.close", "06:00", "cafes[0] (macs).hours[0]"),
        ("cafes.0.pickup.windowMinutes", 7, "cafes[0] (macs).pickup.windowMinutes"),
        ("cafes.0.pickup.capacity", 0, "cafes[0] (macs).pickup.capacity"),
        ("cafes.0.pickup.graceMinutes", 300, "cafes[0] (macs).pickup.graceMinutes"),
        ("cafes.0.menu.0.price", -1, "cafes[0] (macs).menu[0].price"),
        ("cafes.0.menu.1.id", "burger", "cafes[0] (macs).menu[1].id"),
        ("cafes.0.menu.0.name", "", "cafes[0] (macs).menu[0].name"),
        ("cafes.0.menu.0.modifiers.0.price", 20_000_000, "cafes[0] (macs).menu[0].modifiers[0].price"),
        ("cafes.0.menu", [String](), "cafes[0] (macs).menu"),
        ("cafes.0.menu.0.prepSeconds", 0, "cafes[0] (macs).menu[0].prepSeconds"),
        ("cafes.0.menu.0.prepSeconds", 3601, "cafes[0] (macs).menu[0].prepSeconds"),
        ("cafes.0.menu.0.modifiers.0.prepSeconds", -1, "cafes[0] (macs).menu[0].modifiers[0].prepSeconds"),
        ("cafes.0.menu.0.modifiers.0.prepSeconds", 1801, "cafes[0] (macs).menu[0].modifiers[0].prepSeconds"),
        ("cafes.0.approach.radius", 100, "cafes[0] (macs).approach.radius"),
        ("cafes.0.approach.radius", 3000.5, "cafes[0] (macs).approach.radius"),
        ("cafes.0.approach.walkSeconds", 9, "cafes[0] (macs).approach.walkSeconds"),
        ("cafes.0.approach.walkSeconds", 1801, "cafes[0] (macs).approach.walkSeconds"),
        ("cafes.0.beaconMajor", "1", "cafes[0].beaconMajor"),
        ("cafes.0.pickup.capacity", NSNull(), "cafes[0].pickup.capacity"),
    ] as [(String, any Sendable, String)])
    func rules(path: String, value: any Sendable, field: String) throws {
        let object = setting(path, to: value, in: try Self.validObject())
        let error = #expect(throws: CatalogError.self) { try CampusCatalog.decode(try jsonData(object)) }
        #expect(error?.field == field, "\(error?.description ?? "no error")")
        #expect(error?.problem.isEmpty == false)
    }

    @Test("limits are inclusive: radius 500 m, close at 24:00, a 240-minute window")
    func boundariesAccepted() throws {
        var object = try Self.validObject()
        object = setting("cafes.0.confirmationRadius", to: 500, in: object)
        object = setting("cafes.0.hours.0.close", to: "24:00", in: object)
        object = setting("cafes.0.pickup.windowMinutes", to: 240, in: object)
        object = setting("cafes.0.approach.radius", to: 3000, in: object)
        object = setting("cafes.0.approach.walkSeconds", to: 1800, in: object)
        object = setting("cafes.0.menu.0.prepSeconds", to: 3600, in: object)
        object = setting("cafes.0.menu.0.modifiers.0.prepSeconds", to: 0, in: object)
        let catalog = try CampusCatalog.decode(try jsonData(object))
        #expect(catalog.cafes[0].confirmationRadius == 500)
        #expect(catalog.cafes[0].hours[0].closeMinute == 1440)
        #expect(catalog.cafes[0].approach == ApproachArea(radius: 3000, walkSeconds: 1800))
        #expect(catalog.cafes[0].menu[0].prepSeconds == 3600)
    }

    @Test("a file that is missing or not JSON is a CatalogError too")
    func unreadable() throws {
        let missing = #expect(throws: CatalogError.self) { try CampusCatalog.load(path: "/nonexistent/campus.json") }
        #expect(missing == CatalogError(field: "/nonexistent/campus.json", problem: "cannot read the file"))
        let garbage = #expect(throws: CatalogError.self) { try CampusCatalog.decode(frame("{ not json")) }
        #expect(garbage?.field == "(document)")
    }

    @Test("a name given twice in the catalog is refused naming it, as on the wire")
    func repeatedName() throws {
        var text = String(decoding: try Self.fixture("campus.json"), as: UTF8.self)
        let range = try #require(text.range(of: "\"defaultCafe\""))
        text.replaceSubrange(range, with: "\"defaultCafe\": \"nowhere\", \"defaultCafe\"")
        let error = #expect(throws: CatalogError.self) { try CampusCatalog.decode(frame(text)) }
        #expect(error == CatalogError(field: "defaultCafe", problem: "is given more than once"))
    }

    @Test("a catalog nested deeper than 64 levels is refused before it is parsed")
    func deepNesting() throws {
        let deep = "{\"cafes\":" + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        let error = #expect(throws: CatalogError.self) { try CampusCatalog.decode(frame(deep)) }
        #expect(error == CatalogError(field: "(document)", problem: "nests arrays and objects more than 64 levels deep"))
    }
}
