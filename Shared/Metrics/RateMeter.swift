/// Counts events and reports their rate, overall and over the interval since the last reading
/// (the load generator's once-a-second progress line). Times are seconds on any monotonic clock.
public struct RateMeter: Sendable, Equatable {
    /// Every event counted since `start`.
    public private(set) var total: UInt64 = 0
    /// When counting began.
    public let start: Double
    private var lastReadingTotal: UInt64 = 0
    private var lastReadingTime: Double

    public init(start: Double) {
        self.start = start
        lastReadingTime = start
    }

    /// Counts `events` more events.
    public mutating func add(_ events: UInt64 = 1) {
        total += events
    }

    /// Events per second from `start` to `now` (0 before any time has passed).
    public func overallRate(now: Double) -> Double {
        let elapsed = now - start
        return elapsed > 0 ? Double(total) / elapsed : 0
    }

    /// Events per second since the previous reading (or `start`), and starts a new interval.
    public mutating func intervalRate(now: Double) -> Double {
        let elapsed = now - lastReadingTime
        let events = total - lastReadingTotal
        lastReadingTime = now
        lastReadingTotal = total
        return elapsed > 0 ? Double(events) / elapsed : 0
    }
}
