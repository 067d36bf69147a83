/// What a webhook receiver's HTTP status means for the push, in the APNs channel's terms, so a
/// webhook delivery goes through the same durable retry machinery (`PushDecision`) as a push.
public enum WebhookAnswer {
    /// 2xx delivered; 410 the receiver retired the device; 429 back the device off; 408 and 5xx
    /// send again (same `webhook-id`); any other status a refusal not worth repeating. A status of
    /// 0 (no answer: a timeout, a refused or dropped connection) is transient too.
    public static func classify(status: Int) -> APNsOutcome {
        switch status {
        case 200...299: return .accepted
        case 410: return .unregistered(since: nil)
        case 429: return .throttled(reason: "TooManyRequests")
        case 0: return .transient(reason: "no answer")
        case 408, 500...599: return .transient(reason: "\(status)")
        default: return .refused(status: status, reason: "webhook \(status)")
        }
    }
}
