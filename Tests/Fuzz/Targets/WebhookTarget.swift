import Foundation
import Messages
import NotifyCore

/// What notification-service reads from a webhook receiver: its status through
/// `WebhookAnswer.classify`, and a 429's `Retry-After` header through `RetryAfter.seconds` into the
/// receiver's `WebhookCircuit`. An input is a status (its first two bytes, big-endian, modulo 600)
/// and the header's bytes. Checked: only 2xx is accepted; a wait is nil or within 1…3600 s; the
/// breaker never holds a receiver longer than that.
enum WebhookTarget {
    static let now = Timestamp(milliseconds: 1_782_000_000_000)

    static func make() -> FuzzTarget {
        FuzzTarget("webhook", "webhook receivers' answers (status and Retry-After) through WebhookAnswer, RetryAfter and WebhookCircuit", seeds: seeds) { input in
            guard input.count >= 2 else { return nil }
            let status = (Int(input[input.startIndex]) << 8 | Int(input[input.startIndex + 1])) % 600
            let outcome = WebhookAnswer.classify(status: status)
            if (outcome == .accepted) != (200...299).contains(status) { return "status \(status) classified as \(outcome)" }
            let header = String(decoding: input.dropFirst(2), as: UTF8.self)
            guard let seconds = RetryAfter.seconds(header, now: now) else { return nil }
            guard seconds >= RetryAfter.minimumSeconds, seconds <= RetryAfter.maximumSeconds else { return "a Retry-After of \(seconds) s kept" }
            var circuit = WebhookCircuit()
            circuit.record(.throttled(until: now.adding(seconds: seconds)), now: now)
            switch circuit.admit(now: now) {
            case .wait(let until, _) where until <= now.adding(seconds: RetryAfter.maximumSeconds): return nil
            case let other: return "after a 429 of \(seconds) s the breaker says \(other)"
            }
        }
    }

    static func seeds() -> [Data] {
        func answer(_ status: Int, _ header: String) -> Data { Data([UInt8(status >> 8), UInt8(status & 0xff)] + Array(header.utf8)) }
        return [answer(429, "120"), answer(429, "Sun, 06 Nov 1994 08:49:37 GMT"), answer(503, "5"), answer(200, ""), answer(302, "")]
    }
}
