/// What a webhook receiver's HTTP status means for the push, in the APNs channel's terms, so a
/// webhook delivery goes through the same durable retry machinery (`PushDecision`) as a push.
public enum WebhookAnswer {
    /// 2xx delivered; 410 the receiver retired the device; 429 back the receiver off; 401 and 403
    /// the receiver refused the signature (held until the secrets are read again, like a refused
    /// APNs key); 408 and 5xx send again (same `webhook-id`); a redirect is never followed and,
    /// like any other status, a refusal not worth repeating. A status of 0 (no answer: a timeout,
    /// a refused or dropped connection) is transient too.
    public static func classify(status: Int) -> APNsOutcome {
        switch status {
        case 200...299: return .accepted
        case 410: return .unregistered(since: nil)
        case 429: return .throttled(reason: "TooManyRequests")
        case 401, 403: return .credentials(reason: "signature refused (\(status))")
        case 0: return .transient(reason: "no answer")
        case 408, 500...599: return .transient(reason: "\(status)")
        case 300...399: return .refused(status: status, reason: "redirect not followed")
        default: return .refused(status: status, reason: "refused")
        }
    }

    /// Whether the receiver answered as a live service does (anything but no answer, 408 and 5xx):
    /// what closes its circuit breaker.
    public static func isAlive(_ outcome: APNsOutcome) -> Bool {
        if case .transient = outcome { return false }
        return true
    }
}
