import Foundation
import Messages

/// What APNs (or the connection to it) answered one push, sorted by what the sender must do.
public enum APNsOutcome: Sendable, Equatable {
    /// 200: APNs has it.
    case accepted
    /// 410 `Unregistered` (with the time APNs learned it) or 400 `BadDeviceToken`: the token is dead.
    case unregistered(since: Timestamp?)
    /// 403 provider-token, key or topic errors: this key cannot send; nothing should until it is fixed.
    case credentials(reason: String)
    /// 403 `ExpiredProviderToken`: make a new provider token and send again.
    case tokenExpired
    /// 413: the payload is too large; sending it again cannot help.
    case payloadTooLarge
    /// 429: too many pushes to this device (or provider-token updates): back that device off.
    case throttled(reason: String)
    /// 500, 503, GOAWAY, a reset, a dropped connection, a timeout: send again, same `apns-id`.
    case transient(reason: String)
    /// Any other refusal (400 `BadTopic`, `PayloadEmpty`, 404, 405 …): a bug to fix, not a retry.
    case refused(status: Int, reason: String)

    /// APNs' answer: its status and its JSON body (`{"reason": …, "timestamp": ms}`).
    public static func classify(status: Int, body: [UInt8]) -> APNsOutcome {
        let answer = (try? JSONDecoder().decode(Answer.self, from: Data(body.prefix(4_096)))) ?? Answer()
        let reason = String((answer.reason ?? "").prefix(64))
        switch status {
        case 200: return .accepted
        case 410: return .unregistered(since: answer.timestamp.map { Timestamp(milliseconds: $0) })
        case 400 where reason == "BadDeviceToken": return .unregistered(since: nil)
        case 403 where reason == "ExpiredProviderToken": return .tokenExpired
        case 403: return .credentials(reason: reason.isEmpty ? "Forbidden" : reason)
        case 413: return .payloadTooLarge
        case 429: return .throttled(reason: reason.isEmpty ? "TooManyRequests" : reason)
        case 500...599: return .transient(reason: "\(status) \(reason)")
        default: return .refused(status: status, reason: reason)
        }
    }

    /// APNs' error body; a `timestamp` outside 1970…9999 is ignored.
    private struct Answer: Decodable {
        var reason: String?
        var timestamp: Int64?
        init() {}
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            reason = try? c.decodeIfPresent(String.self, forKey: .reason)
            timestamp = (try? c.decodeIfPresent(Int64.self, forKey: .timestamp)).flatMap { $0 }.flatMap { (0...253_402_300_799_999).contains($0) ? $0 : nil }
        }
        enum CodingKeys: String, CodingKey { case reason, timestamp }
    }
}

/// Where a push stands, as its notification's row keeps it.
public enum PushState: String, Sendable, CaseIterable {
    /// Waiting to be sent (first time or again) at its `nextAt`.
    case pending
    /// APNs accepted it.
    case delivered
    /// The token was dead; not sent, and nothing more goes to it until the device registers again.
    case retired
    /// `expiresAt` came before APNs accepted it.
    case expired
    /// Refused for good (413, a bad topic, …).
    case failed
}

/// What one outcome does to the push, decided with the clock and the randomness passed in.
public enum PushDecision: Sendable, Equatable {
    case delivered
    /// Retire the device's token (APNs learned it was dead at `since`, or now).
    case retire(since: Timestamp)
    /// Send again at this time, same `apns-id`.
    case retry(at: Timestamp)
    /// Send again at this time, and hold the device's other pushes until then too.
    case backOffDevice(until: Timestamp)
    /// Keep it pending, unsent: the key is broken (health degraded until it is reloaded).
    case hold
    case expired
    case failed(reason: String)
}

/// Retries back off exponentially with jitter, until the notification expires.
public enum PushRetryPolicy {
    /// The first retry's delay, and the most any retry waits.
    public static let baseSeconds = 1.0
    public static let maxSeconds = 300.0
    /// A device APNs throttled (429) waits at least this long.
    public static let throttleSeconds = 30.0
    /// A push without `expiresAt` is tried for this long after it was made.
    public static let noExpirySeconds = 3_600.0

    /// The delay before attempt `attempts + 1`: base × 2^(attempts − 1), at most `maxSeconds`,
    /// then scaled by a factor in [0.5, 1) from `jitter` (in [0, 1)), so pushes failed together
    /// do not all come back together.
    public static func delay(attempts: Int, jitter: Double, minimum: Double = 0, base: Double = baseSeconds) -> Double {
        let exponential = min(maxSeconds, base * pow(2, Double(max(0, min(attempts - 1, 20)))))
        return max(minimum, exponential * (0.5 + 0.5 * min(max(jitter, 0), 0.999_999)))
    }

    /// What `outcome` does to a push tried `attempts` times (this one included), given when its
    /// notification expires and when the device last registered; `base` is the first retry's delay.
    public static func decide(_ outcome: APNsOutcome, attempts: Int, expiresAt: Timestamp, registeredAt: Timestamp, now: Timestamp,
                              jitter: Double, base: Double = baseSeconds) -> PushDecision {
        func again(_ seconds: Double) -> Timestamp? {
            let at = now.adding(seconds: seconds)
            return at < expiresAt ? at : nil
        }
        switch outcome {
        case .accepted: return .delivered
        case .unregistered(let since):
            // A registration after APNs learned the token was dead is a new, live token.
            if let since, registeredAt > since { return again(delay(attempts: attempts, jitter: jitter, base: base)).map { .retry(at: $0) } ?? .expired }
            return .retire(since: since ?? now)
        case .credentials: return .hold
        case .tokenExpired: return again(0).map { .retry(at: $0) } ?? .expired
        case .payloadTooLarge: return .failed(reason: "413 PayloadTooLarge")
        case .refused(let status, let reason): return .failed(reason: "\(status) \(reason)")
        case .throttled:
            return again(delay(attempts: attempts, jitter: jitter, minimum: throttleSeconds)).map { .backOffDevice(until: $0) } ?? .expired
        case .transient:
            return again(delay(attempts: attempts, jitter: jitter, base: base)).map { .retry(at: $0) } ?? .expired
        }
    }
}
