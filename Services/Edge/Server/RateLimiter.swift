import Messages

/// A token bucket's shape: refilled at `perSecond`, holding at most `burst`.
public struct RateLimit: Sendable, Equatable {
    public let perSecond: Double
    public let burst: Double

    public init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }
}

/// Token buckets by key (a session, a client address), on the injected clock: each request takes
/// one token; an empty bucket refuses and says how long until the next token. A full bucket is the
/// same as none, so `prune` forgets those and the table holds only recent callers; beyond
/// `maxKeys` a new key is refused rather than let an address flood grow memory without bound.
/// Belongs to one thread (the edge's reactor).
public final class RateLimiter {
    public let limit: RateLimit
    public let maxKeys: Int
    private let clock: any WallClock
    private var buckets: [String: (tokens: Double, at: Timestamp)] = [:]
    /// Requests refused since start, for health.
    public private(set) var refused = 0

    /// Buckets of `limit`, at most `maxKeys` held at once.
    public init(limit: RateLimit, clock: any WallClock, maxKeys: Int = 100_000) {
        self.limit = limit
        self.clock = clock
        self.maxKeys = maxKeys
    }

    /// nil when `key` may make a request now (and the token is taken); otherwise the whole seconds
    /// to wait (at least 1), for `Retry-After`.
    public func take(_ key: String) -> Int? {
        let now = clock.now()
        var bucket = buckets[key] ?? (tokens: limit.burst, at: now)
        if buckets[key] == nil, buckets.count >= maxKeys {
            prune()
            if buckets.count >= maxKeys {
                refused += 1
                return 1
            }
        }
        let elapsed = max(0, now.seconds(since: bucket.at))
        bucket.tokens = min(limit.burst, bucket.tokens + elapsed * limit.perSecond)
        bucket.at = now
        guard bucket.tokens >= 1 else {
            buckets[key] = bucket
            refused += 1
            return max(1, Int(((1 - bucket.tokens) / limit.perSecond).rounded(.up)))
        }
        bucket.tokens -= 1
        buckets[key] = bucket
        return nil
    }

    /// Forgets the buckets that have refilled (the same as never seen).
    public func prune() {
        let now = clock.now()
        buckets = buckets.filter { _, bucket in bucket.tokens + max(0, now.seconds(since: bucket.at)) * limit.perSecond < limit.burst }
    }

    /// How many keys are held.
    public var count: Int { buckets.count }
}
