import Foundation
import Messages

/// Formats pickup times with the medium-date / short-time preset, in the café's time zone and the
/// user's locale: "Jun 25, 2020 at 9:41 AM" for en_US (ICU puts U+202F before "AM").
/// Formatters are cached per (locale, zone); an instance belongs to one thread.
public final class PickupTimeFormatter {
    private var cache: [String: DateFormatter] = [:]

    public init() {}

    public func format(_ time: Timestamp, timeZone: String, locale: String) -> String {
        let key = locale + "|" + timeZone
        let formatter: DateFormatter
        if let cached = cache[key] {
            formatter = cached
        } else {
            formatter = DateFormatter()
            formatter.dateStyle = .medium
            formatter.timeStyle = .short
            formatter.locale = Locale(identifier: locale)
            formatter.timeZone = TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")!
            cache[key] = formatter
        }
        return formatter.string(from: time.date)
    }
}

/// Locale identifiers a request may carry: "en_US", "es-UY", "ja" (letters, digits, _ and -).
public func isValidLocaleIdentifier(_ text: String) -> Bool {
    !text.isEmpty && text.count <= 35 && text.utf8.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 || $0 == 45 }
        && Locale(identifier: text).language.languageCode != nil
}
