import Foundation

/// Formats exact amounts (minor units, `Decimal`, never `Double`) in a café's currency for a
/// user's locale: en_US + CAD → "CA$1.00"; es_UY at a Texas café shows US dollars, never pesos.
///
/// NumberFormatter only formats; it converts nothing. Formatters are cached per (locale, currency);
/// an instance belongs to one thread.
public final class MoneyFormatter {
    private var cache: [String: NumberFormatter] = [:]

    public init() {}

    /// Digits after the decimal point in ISO 4217 (JPY 0, USD 2, BHD 3).
    public static func minorDigits(_ currency: String) -> Int {
        switch currency {
        case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF": 0
        case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND": 3
        default: 2
        }
    }

    /// The exact decimal amount of `minorUnits` in `currency`.
    public static func decimal(minorUnits: Int64, currency: String) -> Decimal {
        let magnitude = Decimal(minorUnits.magnitude)
        return Decimal(sign: minorUnits < 0 ? .minus : .plus, exponent: -minorDigits(currency), significand: magnitude)
    }

    /// "CA$1.00" for (100, "CAD", "en_US").
    public func format(minorUnits: Int64, currency: String, locale: String) -> String {
        let key = locale + "|" + currency
        let formatter: NumberFormatter
        if let cached = cache[key] {
            formatter = cached
        } else {
            formatter = NumberFormatter()
            formatter.numberStyle = .currency
            formatter.locale = Locale(identifier: locale)
            formatter.currencyCode = currency
            let digits = Self.minorDigits(currency)
            formatter.minimumFractionDigits = digits
            formatter.maximumFractionDigits = digits
            cache[key] = formatter
        }
        let amount = NSDecimalNumber(decimal: Self.decimal(minorUnits: minorUnits, currency: currency))
        return formatter.string(from: amount) ?? "\(amount) \(currency)"
    }
}
