import ServiceRuntime

/// A usage mistake: one line on stderr, exit 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
