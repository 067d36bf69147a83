import Messages
import ServiceRuntime
import Testing

struct CircuitBreakerTests {
    @Test("closed until a failure; open for openSeconds after it; an answer closes it; a failed retry opens it again")
    func states() {
        var breaker = CircuitBreaker(openSeconds: 5)
        let t0 = Timestamp(milliseconds: 1_000_000)
        #expect(breaker.refusesUntil(at: t0) == nil)
        breaker.failed(at: t0)
        #expect(breaker.refusesUntil(at: t0.adding(seconds: 4.999)) == t0.adding(seconds: 5))
        #expect(breaker.refusesUntil(at: t0.adding(seconds: 5)) == nil, "exactly at the end the next call goes out")
        breaker.failed(at: t0.adding(seconds: 5))
        #expect(breaker.refusesUntil(at: t0.adding(seconds: 9)) == t0.adding(seconds: 10))
        breaker.answered()
        #expect(breaker.refusesUntil(at: t0.adding(seconds: 9)) == nil && breaker.openUntil == nil)
        var never = CircuitBreaker(openSeconds: 0)
        never.failed(at: t0)
        #expect(never.refusesUntil(at: t0) == nil, "0 s asks every time, as before the breaker")
    }
}
