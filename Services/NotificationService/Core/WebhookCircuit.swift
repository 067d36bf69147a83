import Messages

/// One webhook receiver's circuit breaker and backoff, with the clock passed in. Closed, every
/// delivery goes; after `failures` consecutive failures (no answer, 408, 5xx) it opens and
/// nothing goes for `coolDownSeconds`; then one delivery goes as a probe (half-open) while the
/// rest wait; the probe's answer closes it, its failure opens it for another cool-down. A 429
/// backs the receiver off until its `Retry-After` whatever the breaker says. A receiver that is
/// down thus costs one request per cool-down, not one per delivery and retry.
public struct WebhookCircuit: Sendable, Equatable {
    public enum State: String, Sendable { case closed, open, halfOpen }

    /// When it opens and how long it stays open.
    public struct Limits: Sendable, Equatable {
        /// Consecutive failures that open the breaker.
        public var failures: Int
        /// How long an open breaker sends nothing before its probe.
        public var coolDownSeconds: Double
        public static let defaultFailures = 5
        public static let defaultCoolDownSeconds = 30.0
        public init(failures: Int = defaultFailures, coolDownSeconds: Double = defaultCoolDownSeconds) {
            self.failures = max(1, failures)
            self.coolDownSeconds = max(0, coolDownSeconds)
        }
    }

    /// What a delivery due now may do.
    public enum Admission: Sendable, Equatable {
        /// Go.
        case send
        /// Go, as the half-open breaker's one probe.
        case probe
        /// Wait until then (or until the breaker closes): open, probing, or backed off.
        case wait(until: Timestamp, reason: String)
    }

    /// How an attempt ended, for the breaker.
    public enum Result: Sendable, Equatable {
        /// The receiver answered (2xx, or a refusal: it is up).
        case answered
        /// No answer, 408 or 5xx.
        case failed
        /// 429: up, but nothing more until `until`.
        case throttled(until: Timestamp)
    }

    public let limits: Limits
    public private(set) var state = State.closed
    public private(set) var consecutiveFailures = 0
    /// When the breaker last opened; nil while closed.
    public private(set) var openedAt: Timestamp?
    /// Nothing is sent before this (the last 429's Retry-After).
    public private(set) var backoffUntil: Timestamp?
    /// How often it opened since start, for health.
    public private(set) var opened = 0
    /// When the half-open breaker's probe went out.
    private var probeAt: Timestamp?

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Whether a delivery may go at `now`. `.probe` moves an open breaker whose cool-down is over
    /// to half-open: call it only for a delivery that is then sent.
    public mutating func admit(now: Timestamp) -> Admission {
        if let backoffUntil, now < backoffUntil { return .wait(until: backoffUntil, reason: "endpoint.backoff") }
        switch state {
        case .closed: return .send
        case .open:
            let reopens = (openedAt ?? now).adding(seconds: limits.coolDownSeconds)
            guard now >= reopens else { return .wait(until: reopens, reason: "circuit.open") }
            state = .halfOpen
            probeAt = now
            return .probe
        case .halfOpen:
            // One probe at a time: the others wait for its answer (which closes the breaker and
            // releases them), at most a cool-down; a probe unanswered that long is replaced.
            let replaced = (probeAt ?? now).adding(seconds: limits.coolDownSeconds)
            guard now >= replaced else { return .wait(until: replaced, reason: "circuit.open") }
            probeAt = now
            return .probe
        }
    }

    /// Records an attempt's end at `now`; returns true when it closed an open or half-open breaker
    /// (the deliveries it held may go at once).
    @discardableResult
    public mutating func record(_ result: Result, now: Timestamp) -> Bool {
        switch result {
        case .answered, .throttled:
            if case .throttled(let until) = result { backoffUntil = max(backoffUntil ?? until, until) }
            let wasOpen = state != .closed
            state = .closed
            consecutiveFailures = 0
            openedAt = nil
            probeAt = nil
            return wasOpen
        case .failed:
            consecutiveFailures += 1
            switch state {
            case .halfOpen: open(now)
            case .closed where consecutiveFailures >= limits.failures: open(now)
            case .closed, .open: break
            }
            return false
        }
    }

    private mutating func open(_ now: Timestamp) {
        state = .open
        openedAt = now
        probeAt = nil
        opened += 1
    }
}
