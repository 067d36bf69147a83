import Foundation
import Messages
import NotifyCore

/// What notification-service reads from APNs: an answer's status and JSON body, through
/// `APNsOutcome.classify`, and what each outcome then decides (`PushRetryPolicy.decide`). An input
/// is a status (its first two bytes, big-endian, taken modulo 600) and a body. Checked: a
/// `timestamp` is kept only within 1970…9999, a reason at most 64 bytes, 200 is always accepted,
/// and no decision sends again after the notification's expiry.
enum APNsTarget {
    static let now = Timestamp(milliseconds: 1_782_000_000_000)

    static func make() -> FuzzTarget {
        FuzzTarget("apns", "APNs answers (status and JSON body) through APNsOutcome.classify and PushRetryPolicy.decide", seeds: seeds) { input in
            guard input.count >= 2 else { return nil }
            let status = (Int(input[input.startIndex]) << 8 | Int(input[input.startIndex + 1])) % 600
            let outcome = APNsOutcome.classify(status: status, body: Array(input.dropFirst(2)))
            switch outcome {
            case .accepted where status != 200: return "status \(status) classified as accepted"
            case .unregistered(let since?) where since.milliseconds < 0 || since.milliseconds > 253_402_300_799_999: return "a timestamp out of range kept"
            case .credentials(let reason), .throttled(let reason):
                if reason.utf8.count > 64 { return "a reason of \(reason.utf8.count) bytes" }
            default: break
            }
            if status == 200, outcome != .accepted { return "200 not accepted" }
            let expiresAt = now.adding(seconds: 60)
            for attempts in [1, 5, 30] {
                switch PushRetryPolicy.decide(outcome, attempts: attempts, expiresAt: expiresAt, registeredAt: now.adding(seconds: -10), now: now, jitter: 0.7) {
                case .retry(let at), .backOffDevice(let at):
                    if at >= expiresAt { return "a retry at \(at) after the expiry" }
                default: break
                }
            }
            return nil
        }
    }

    static func seeds() -> [Data] {
        func answer(_ status: Int, _ body: String) -> Data { Data([UInt8(status >> 8), UInt8(status & 0xff)] + Array(body.utf8)) }
        return [answer(200, ""), answer(410, #"{"reason":"Unregistered","timestamp":1782000000000}"#), answer(400, #"{"reason":"BadDeviceToken"}"#),
                answer(403, #"{"reason":"ExpiredProviderToken"}"#), answer(429, #"{"reason":"TooManyRequests"}"#), answer(503, #"{"reason":"ServiceUnavailable"}"#)]
    }
}
