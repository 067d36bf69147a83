import Campus
import Foundation
import Testing

@Suite("Money formatting")
struct MoneyFormatterTests {
    // Exact strings as Foundation/ICU on this toolchain produce them (U+00A0 is a no-break space).
    @Test("amounts are formatted in the café's currency for the user's locale", arguments: [
        (Int64(100), "CAD", "en_US", "CA$1.00"),
        (100, "USD", "en_US", "$1.00"),
        (450, "USD", "en_US", "$4.50"),
        (-250, "USD", "en_US", "-$2.50"),
        (100, "USD", "es_UY", "US$\u{A0}1,00"),
        (450, "JPY", "ja_JP", "¥450"),
        (450, "JPY", "en_US", "¥450"),
        (123_456, "EUR", "de_DE", "1.234,56\u{A0}€"),
        (100, "GBP", "en_GB", "£1.00"),
        (100, "CAD", "fr_CA", "1,00\u{A0}$"),
        (1_500, "BHD", "en_US", "BHD\u{A0}1.500"),
    ] as [(Int64, String, String, String)])
    func formats(minorUnits: Int64, currency: String, locale: String, expected: String) {
        #expect(MoneyFormatter().format(minorUnits: minorUnits, currency: currency, locale: locale) == expected)
    }

    @Test("a phone set to es_UY in a Texas café sees US dollars, not pesos")
    func noCurrencyConversion() {
        let text = MoneyFormatter().format(minorUnits: 1_150, currency: "USD", locale: "es_UY")
        #expect(text.contains("US$"))
        #expect(!text.contains("UYU"))
        #expect(!text.contains("$U"))
        #expect(text.contains("11,50"))
    }

    @Test("ISO 4217 minor digits", arguments: [
        ("USD", 2), ("EUR", 2), ("CAD", 2), ("GBP", 2), ("JPY", 0), ("KRW", 0), ("ISK", 0), ("CLP", 0),
        ("BHD", 3), ("KWD", 3), ("JOD", 3), ("OMR", 3), ("TND", 3),
    ])
    func minorDigits(currency: String, digits: Int) {
        #expect(MoneyFormatter.minorDigits(currency) == digits)
    }

    @Test("minor units become an exact Decimal, beyond what a Double can hold", arguments: [
        (Int64(12_345), "USD", "123.45"),
        (450, "JPY", "450"),
        (1_500, "BHD", "1.5"),
        (-1, "USD", "-0.01"),
        (0, "USD", "0"),
        (9_007_199_254_740_993, "USD", "90071992547409.93"),
        (Int64.min + 1, "USD", "-92233720368547758.07"),
    ] as [(Int64, String, String)])
    func exactDecimal(minorUnits: Int64, currency: String, expected: String) {
        #expect(MoneyFormatter.decimal(minorUnits: minorUnits, currency: currency) == Decimal(string: expected))
    }

    @Test("one formatter serves many locales and currencies without mixing them up")
    func cachePerLocaleAndCurrency() {
        let formatter = MoneyFormatter()
        for _ in 0..<3 {
            #expect(formatter.format(minorUnits: 100, currency: "CAD", locale: "en_US") == "CA$1.00")
            #expect(formatter.format(minorUnits: 100, currency: "USD", locale: "en_US") == "$1.00")
            #expect(formatter.format(minorUnits: 123_456, currency: "EUR", locale: "de_DE") == "1.234,56\u{A0}€")
            #expect(formatter.format(minorUnits: 450, currency: "JPY", locale: "ja_JP") == "¥450")
        }
    }
}
