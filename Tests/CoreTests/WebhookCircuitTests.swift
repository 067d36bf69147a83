import Foundation
import Messages
import NotifyCore
import Testing

/// A webhook receiver's circuit breaker and 429 backoff, on an injected clock: no sleeping.
@Suite("Webhooks: circuit breaker and backoff")
struct WebhookCircuitTests {
    let limits = WebhookCircuit.Limits(failures: 3, coolDownSeconds: 30)

    @Test("closed until N consecutive failures; an answer in between starts the count again")
    func opensAfterConsecutiveFailures() {
        var circuit = WebhookCircuit(limits: limits)
        circuit.record(.failed, now: .at(0))
        circuit.record(.failed, now: .at(1))
        circuit.record(.answered, now: .at(2))
        circuit.record(.failed, now: .at(3))
        circuit.record(.failed, now: .at(4))
        let stillClosed = circuit.admit(now: .at(4))
        #expect(circuit.state == .closed && stillClosed == .send)
        circuit.record(.failed, now: .at(5))
        #expect(circuit.state == .open && circuit.opened == 1 && circuit.consecutiveFailures == 3)
        let early = circuit.admit(now: .at(6))
        let almost = circuit.admit(now: .at(34.999))
        #expect(early == .wait(until: .at(35), reason: "circuit.open") && almost == early)
    }

    @Test("after the cool-down one probe goes (half-open) while the rest wait; its success closes the breaker")
    func probeCloses() {
        var circuit = WebhookCircuit(limits: limits)
        for second in 0..<3 { circuit.record(.failed, now: .at(Double(second))) }
        let probe = circuit.admit(now: .at(32))
        #expect(probe == .probe && circuit.state == .halfOpen)
        let other = circuit.admit(now: .at(33))
        #expect(other == .wait(until: .at(62), reason: "circuit.open"), "one probe at a time")
        let closed = circuit.record(.answered, now: .at(34))
        #expect(closed, "the probe's answer closes it, and says so")
        let next = circuit.admit(now: .at(34))
        #expect(circuit.state == .closed && circuit.consecutiveFailures == 0 && next == .send)
        let again = circuit.record(.answered, now: .at(35))
        #expect(!again, "closing a closed breaker is no news")
    }

    @Test("a failed probe opens the breaker for another cool-down; an unanswered probe is replaced after one")
    func probeFails() {
        var circuit = WebhookCircuit(limits: limits)
        for second in 0..<3 { circuit.record(.failed, now: .at(Double(second))) }
        let first = circuit.admit(now: .at(40))
        #expect(first == .probe)
        circuit.record(.failed, now: .at(41))
        #expect(circuit.state == .open && circuit.opened == 2)
        var admissions: [WebhookCircuit.Admission] = []
        for second in [70.0, 71, 100, 101] { admissions.append(circuit.admit(now: .at(second))) }
        #expect(admissions == [.wait(until: .at(71), reason: "circuit.open"), .probe, .wait(until: .at(101), reason: "circuit.open"), .probe],
                "a probe whose answer never came is replaced after a cool-down")
    }

    @Test("a 429 holds everything until its Retry-After, whatever the breaker says, and counts as an answer")
    func backoff() {
        var circuit = WebhookCircuit(limits: limits)
        circuit.record(.failed, now: .at(0))
        circuit.record(.throttled(until: .at(7)), now: .at(1))
        #expect(circuit.consecutiveFailures == 0 && circuit.state == .closed)
        var admissions: [WebhookCircuit.Admission] = []
        for second in [6.9, 7] { admissions.append(circuit.admit(now: .at(second))) }
        #expect(admissions == [.wait(until: .at(7), reason: "endpoint.backoff"), .send])
        // A shorter Retry-After never shortens a longer one already asked for.
        circuit.record(.throttled(until: .at(20)), now: .at(8))
        circuit.record(.throttled(until: .at(10)), now: .at(9))
        let later = circuit.admit(now: .at(15))
        #expect(later == .wait(until: .at(20), reason: "endpoint.backoff"))
    }

    @Test("limits are bounded: at least one failure, no negative cool-down")
    func limitsBounded() {
        let odd = WebhookCircuit.Limits(failures: 0, coolDownSeconds: -5)
        #expect(odd.failures == 1 && odd.coolDownSeconds == 0)
        #expect(WebhookCircuit.Limits() == WebhookCircuit.Limits(failures: 5, coolDownSeconds: 30))
    }

    @Test("Retry-After: delay-seconds or an HTTP-date, bounded to 1…3600 s; anything else is nil")
    func retryAfter() {
        let now = Timestamp(milliseconds: 784_111_777_000)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.seconds("120", now: now) == 120)
        #expect(RetryAfter.seconds(" 7 ", now: now) == 7)
        #expect(RetryAfter.seconds("0", now: now) == 1)
        #expect(RetryAfter.seconds("99999999", now: now) == 3_600)
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:50:37 GMT", now: now) == 60)
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:40:37 GMT", now: now) == 1, "a date in the past: the least wait")
        for bad in [nil, "", "-5", "1.5", "soon", "12345678901", String(repeating: "9", count: 80)] {
            #expect(RetryAfter.seconds(bad, now: now) == nil, "\(bad ?? "nil")")
        }
    }

    @Test("receiver statuses: 2xx delivered, 410 retired, 429 throttled, 401/403 held, 408/5xx/none again, 3xx and other 4xx failed")
    func statuses() {
        #expect(WebhookAnswer.classify(status: 204) == .accepted)
        #expect(WebhookAnswer.classify(status: 410) == .unregistered(since: nil))
        #expect(WebhookAnswer.classify(status: 401) == .credentials(reason: "signature refused (401)"))
        #expect(WebhookAnswer.classify(status: 302) == .refused(status: 302, reason: "redirect not followed"))
        #expect(WebhookAnswer.classify(status: 404) == .refused(status: 404, reason: "refused"))
        #expect(!WebhookAnswer.isAlive(WebhookAnswer.classify(status: 0)) && !WebhookAnswer.isAlive(WebhookAnswer.classify(status: 503)))
        #expect(WebhookAnswer.isAlive(WebhookAnswer.classify(status: 404)) && WebhookAnswer.isAlive(WebhookAnswer.classify(status: 429)))
    }
}
