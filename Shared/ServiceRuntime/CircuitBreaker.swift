import Messages

/// Stops asking a peer that has just failed to answer. A service has one loop, and a request to a
/// dead peer holds it for the whole timeout; the breaker makes that one timeout per `openSeconds`
/// instead of one per request. After `openSeconds` the next call goes out again: an answer closes
/// the breaker, another failure opens it for another `openSeconds`.
public struct CircuitBreaker: Sendable, Equatable {
    public let openSeconds: Double
    /// Until when calls are refused without asking; nil while the peer answers.
    public private(set) var openUntil: Timestamp?

    public init(openSeconds: Double) {
        precondition(openSeconds >= 0, "openSeconds is not negative")
        self.openSeconds = openSeconds
    }

    /// nil when a call may go out at `now`; otherwise the time the next one may.
    public func refusesUntil(at now: Timestamp) -> Timestamp? {
        guard let openUntil, now < openUntil else { return nil }
        return openUntil
    }

    /// The peer answered (an error reply is an answer too).
    public mutating func answered() { openUntil = nil }

    /// The peer did not answer in time, or the call could not be made.
    public mutating func failed(at now: Timestamp) { openUntil = now.adding(seconds: openSeconds) }
}
