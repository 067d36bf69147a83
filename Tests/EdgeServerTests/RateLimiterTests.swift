import EdgeCore
import EdgeServer
import Messages
import Testing
import TestSupport

@Suite("Rate limits: token buckets on the injected clock")
struct RateLimiterTests {
    @Test("a burst is allowed, the next request waits for a token, and Retry-After says how long")
    func burstThenWait() {
        let clock = ManualClock()
        let limiter = RateLimiter(limit: RateLimit(perSecond: 0.5, burst: 3), clock: clock)
        for _ in 0..<3 { #expect(limiter.take("t:a") == nil) }
        #expect(limiter.take("t:a") == 2)
        // Another key has its own bucket.
        #expect(limiter.take("t:b") == nil)
        clock.advance(seconds: 1)
        #expect(limiter.take("t:a") == 1)
        clock.advance(seconds: 1)
        #expect(limiter.take("t:a") == nil)
        #expect(limiter.take("t:a") == 2)
        #expect(limiter.refused == 3)
    }

    @Test("a refused request takes no token: hammering does not push the wait further out")
    func refusalTakesNothing() {
        let clock = ManualClock()
        let limiter = RateLimiter(limit: RateLimit(perSecond: 1, burst: 1), clock: clock)
        #expect(limiter.take("k") == nil)
        for _ in 0..<50 { #expect(limiter.take("k") == 1) }
        clock.advance(seconds: 1)
        #expect(limiter.take("k") == nil)
    }

    @Test("refilled buckets are forgotten; beyond maxKeys a new key is refused, not remembered")
    func boundedKeys() {
        let clock = ManualClock()
        let limiter = RateLimiter(limit: RateLimit(perSecond: 1, burst: 2), clock: clock, maxKeys: 3)
        for key in ["a", "b", "c"] { #expect(limiter.take(key) == nil) }
        #expect(limiter.take("d") == 1)
        #expect(limiter.count == 3)
        clock.advance(seconds: 5)
        #expect(limiter.take("d") == nil)
        #expect(limiter.count == 1)
        limiter.prune()
        #expect(limiter.count == 1)
        clock.advance(seconds: 5)
        limiter.prune()
        #expect(limiter.count == 0)
    }
}

@Suite("The client address a per-address limit counts")
struct ClientAddressTests {
    func address(peer: String? = nil, forwarded: [String]) -> String {
        EdgeServer.clientAddress(of: ZhttpRequest(id: [1], method: "GET", uri: "/v1/menu", headers: HTTPHeaders(forwarded.map { ("X-Forwarded-For", $0) }),
                                                  peerAddress: peer))
    }

    @Test("the peer address when sent, else the last X-Forwarded-For entry (Pushpin's); anything not an address is unknown")
    func lastEntry() {
        #expect(address(peer: "192.0.2.7", forwarded: ["203.0.113.9"]) == "192.0.2.7")
        #expect(address(forwarded: ["198.51.100.1, 203.0.113.9"]) == "203.0.113.9")
        #expect(address(forwarded: ["198.51.100.1", "2001:db8::1"]) == "2001:db8::1")
        #expect(address(forwarded: []) == "unknown")
        #expect(address(forwarded: ["203.0.113.9, evil.example"]) == "unknown")
        #expect(address(forwarded: [String(repeating: "1", count: 65)]) == "unknown")
    }
}
