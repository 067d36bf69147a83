import Messages
import Policy

/// Who may push location fixes into region-monitor: beacon-ingest, and nobody else. A fix moves
/// a device into and out of circles and answers App Clip checks, so a forged one could place a
/// phone in a café it never entered; the fix channel asks this rule about every message's sender,
/// as its connection proved it (the ZAP handler's User-Id and key), never as the envelope says.
///
/// Plain mode has no identities (every sender is the developer) and cannot tell a forger from
/// beacon-ingest: it binds only loopback, which is its whole defence.
enum FixSenders {
    /// The one service whose instances push fixes.
    static let service = "beacon-ingest"

    /// Why a message from `caller` is not a fix region-monitor applies; nil when it may push.
    /// `caller` nil: the key the connection authenticated with has been revoked since.
    static func refusal(_ caller: Caller?, userId: String?) -> ServiceError? {
        guard let caller else {
            return ServiceError(.forbidden, "the key \(Quoting.quoted(userId ?? "unknown")) pushing fixes is no longer in the campus key registry")
        }
        guard let principal = caller.principal else { return nil }
        if principal.role == .service && principal.service == service { return nil }
        return caller.forbidden("push location fixes; only \(service) may")
    }
}
