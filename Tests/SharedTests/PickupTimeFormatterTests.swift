import Campus
import Foundation
import Messages
import Testing

@Suite("Pickup time formatting")
struct PickupTimeFormatterTests {
    static let appleEventTime = Timestamp(milliseconds: 1_593_103_260_000)  // 2020-06-25T16:41:00Z

    // Medium date, short time, exact strings as ICU on this toolchain gives them.
    @Test("medium date and short time in the café's zone and the user's locale", arguments: [
        ("en_US", "America/Los_Angeles", "Jun 25, 2020 at 9:41\u{202F}AM"),   // ICU puts U+202F before AM
        ("de_DE", "Europe/Berlin", "25.06.2020, 18:41"),
        ("ja_JP", "Asia/Tokyo", "2020/06/26 1:41"),                          // already the next day in Tokyo
        ("en_GB", "Europe/London", "25 Jun 2020 at 17:41"),
        ("fr_FR", "Europe/Paris", "25 juin 2020 à 18:41"),
        ("en_US", "Asia/Tokyo", "Jun 26, 2020 at 1:41\u{202F}AM"),
    ])
    func formats(locale: String, timeZone: String, expected: String) {
        #expect(PickupTimeFormatter().format(Self.appleEventTime, timeZone: timeZone, locale: locale) == expected)
    }

    @Test("one formatter keeps zones and locales apart")
    func cache() {
        let formatter = PickupTimeFormatter()
        for _ in 0..<3 {
            #expect(formatter.format(Self.appleEventTime, timeZone: "America/Los_Angeles", locale: "en_US") == "Jun 25, 2020 at 9:41\u{202F}AM")
            #expect(formatter.format(Self.appleEventTime, timeZone: "Europe/Berlin", locale: "de_DE") == "25.06.2020, 18:41")
            #expect(formatter.format(Self.appleEventTime, timeZone: "America/New_York", locale: "en_US") == "Jun 25, 2020 at 12:41\u{202F}PM")
        }
    }

    @Test("locale identifiers from requests", arguments: [
        ("en_US", true), ("es-UY", true), ("ja", true), ("de_DE", true), ("zh-Hant-TW", true),
        ("", false), ("en US", false), ("en_US;DROP", false), ("../etc", false), (String(repeating: "a", count: 36), false),
    ])
    func localeIdentifiers(identifier: String, valid: Bool) {
        #expect(isValidLocaleIdentifier(identifier) == valid)
    }
}
