import Campus
import Messages
import OrderCore
import Testing

@Suite("Menu presentation: prices in the café's currency for the user's locale")
struct MenuPresenterTests {
    static func cafe(_ id: String) throws -> Cafe { try #require(try DemoCampus.load().cafe(id)) }

    // Exact strings as Foundation/ICU produce them on this toolchain; U+00A0 is a no-break space.
    @Test("a menu price per café and locale", arguments: [
        ("caffe-macs", "burger", "en_US", "$10.95"),
        ("caffe-macs", "burger", "en_GB", "US$10.95"),
        ("parmer-lane-5", "breakfast-taco", "es_UY", "US$\u{A0}3,75"),
        ("parmer-lane-5", "brisket-bowl", "es_UY", "US$\u{A0}12,50"),
        ("munich-cafe", "cappuccino", "de_DE", "3,40\u{A0}€"),
        ("munich-cafe", "cappuccino", "en_US", "€3.40"),
        ("london-cafe", "bacon-roll", "en_GB", "£4.50"),
        ("tokyo-cafe", "onigiri", "ja_JP", "¥480"),
        ("tokyo-cafe", "onigiri", "en_US", "¥480"),
        ("tokyo-cafe", "katsu-sando", "ja_JP", "¥850"),
    ])
    func price(cafe: String, item: String, locale: String, expected: String) throws {
        let cafe = try Self.cafe(cafe)
        let amount = try #require(cafe.item(item)).price
        let view = MenuPresenter().price(amount, cafe: cafe, locale: locale)
        #expect(view.formatted == expected)
        #expect(Array(view.formatted.unicodeScalars) == Array(expected.unicodeScalars))
        #expect(view.minorUnits == amount)
        #expect(view.currency == cafe.currency)
    }

    @Test("a phone set to es_UY in a Texas café sees US dollars, not pesos")
    func uruguayanPhoneInTexas() throws {
        let text = MenuPresenter().price(375, cafe: try Self.cafe("parmer-lane-5"), locale: "es_UY").formatted
        #expect(text == "US$\u{A0}3,75")
        #expect(!text.contains("$U"))
        #expect(!text.contains("UYU"))
        #expect(!text.contains("UY"))
    }

    @Test("euros in German: comma decimal, no-break space, sign after")
    func munichBytes() throws {
        let text = MenuPresenter().price(340, cafe: try Self.cafe("munich-cafe"), locale: "de_DE").formatted
        #expect(Array(text.utf8) == [0x33, 0x2C, 0x34, 0x30, 0xC2, 0xA0, 0xE2, 0x82, 0xAC]) // "3,40" NBSP "€"
    }

    @Test("yen have no minor digits", arguments: ["ja_JP", "en_US", "de_DE"])
    func yenWithoutDecimals(locale: String) throws {
        let text = MenuPresenter().price(520, cafe: try Self.cafe("tokyo-cafe"), locale: locale).formatted
        #expect(text.contains("520"))
        #expect(!text.contains("520.") && !text.contains("520,") && !text.contains("5.20") && !text.contains("5,20"))
    }

    @Test("a CAD price for en_US reads CA$1.00")
    func canadianDollars() throws {
        var cafe = try Self.cafe("caffe-macs")
        cafe.currency = "CAD"
        #expect(MenuPresenter().price(100, cafe: cafe, locale: "en_US").formatted == "CA$1.00")
        #expect(MenuPresenter().price(100, cafe: cafe, locale: "en_US").currency == "CAD")
    }

    @Test("the whole menu: every item and modifier priced, the café and rule named")
    func wholeMenu() throws {
        let cafe = try Self.cafe("caffe-macs")
        let menu = MenuPresenter().menu(cafe, rule: .nearestBeacon, locale: "en_US")
        #expect(menu.cafe == CafeSummary(id: "caffe-macs", name: "Caffè Macs", timeZone: "America/Los_Angeles", currency: "USD"))
        #expect(menu.rule == .nearestBeacon)
        #expect(menu.items.map(\.id) == ["burger", "caesar", "margherita", "fries"])
        #expect(menu.items.map(\.price.formatted) == ["$10.95", "$8.95", "$10.50", "$3.95"])
        #expect(menu.items.map(\.station) == ["grill", "salad", "pizza", "grill"])
        let burger = try #require(menu.items.first)
        #expect(burger.modifiers.map(\.id) == ["cheese", "no-bun"])
        #expect(burger.modifiers.map(\.price.formatted) == ["$1.00", "$0.00"])
    }
}
