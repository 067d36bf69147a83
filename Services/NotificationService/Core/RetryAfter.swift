import Foundation
import Messages

/// A 429's `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. What a
/// receiver asks for is honoured within bounds: never less than `minimumSeconds`, never more
/// than `maximumSeconds` (a receiver cannot park deliveries past any notification's life).
public enum RetryAfter {
    public static let minimumSeconds = 1.0
    public static let maximumSeconds = 3_600.0
    /// The longest header value read: an IMF-fixdate is 29 bytes.
    public static let maxValueBytes = 64

    /// The wait the header asks for at `now`, in seconds within the bounds; nil when absent or not
    /// one of the two forms.
    public static func seconds(_ value: String?, now: Timestamp) -> Double? {
        guard let value, value.utf8.count <= maxValueBytes else { return nil }
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let delay = Double(text) {
            return clamp(delay)
        }
        guard let date = httpDate(text) else { return nil }
        return clamp(date.timeIntervalSince1970 - Double(now.milliseconds) / 1_000)
    }

    static func clamp(_ seconds: Double) -> Double { min(maximumSeconds, max(minimumSeconds, seconds)) }

    /// An IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the form RFC 9110 requires senders to use.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
