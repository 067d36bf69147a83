/// How a value someone sent is quoted back in an error message, a log line or a dead letter: at
/// most `limit` characters, and its full length when cut, so a hostile 200 KB value is never
/// echoed whole.
public enum Quoting {
    public static let defaultLimit = 64

    /// `"abc"`, or `"abc…" (70000 characters)` when longer than `limit`.
    public static func quoted(_ value: some StringProtocol, limit: Int = defaultLimit) -> String {
        let count = value.count
        guard count > limit else { return "\"\(value)\"" }
        return "\"\(value.prefix(limit))…\" (\(count) characters)"
    }

    /// The value itself, cut to `limit` characters with `…` and its length when longer.
    public static func cut(_ value: some StringProtocol, limit: Int = defaultLimit) -> String {
        let count = value.count
        guard count > limit else { return String(value) }
        return "\(value.prefix(limit))… (\(count) characters)"
    }
}
