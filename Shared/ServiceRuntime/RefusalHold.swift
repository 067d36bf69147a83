import Policy

/// Callers told to wait (`request.rateLimited`, `request.busy` with `retryAfterMs`) who ask again
/// before then: their early requests are dropped unanswered, not refused again.
///
/// Answering a refusal costs the reactor a decode, a check and an encoded reply. Fifty replay
/// clients that never wait out `retryAfterMs` drew over 7,000 refusals a second from
/// order-service, and order → notification p99 stayed at 197 ms (issue 28). A dropped request
/// costs a dictionary look-up; its client waits out its own timeout, which slows it down as the
/// refusal asked. A caller that waits as told never sees a drop.
///
/// Only a connection's own principal of a person's role is held (phone, kiosk, kitchen, operator):
/// services and the HTTP edge carry many callers on one key, and one of them being told to wait
/// must not silence the others. Bounded: at most `maxHeld` principals, each forgotten when its
/// wait is over.
public struct RefusalHold: Sendable {
    public static let maxHeld = 65_536

    /// Each held principal's end of wait (seconds, the caller's clock).
    private var until: [String: Double] = [:]
    /// Requests dropped since start.
    public private(set) var dropped = 0

    public init() {}

    /// How many principals are held now.
    public var heldCount: Int { until.count }

    /// Whether a request of `principal` (the connection's User-Id) at `now` is dropped; counted when so.
    public mutating func drops(_ principal: String?, now: Double) -> Bool {
        guard let principal, let end = until[principal] else { return false }
        guard now < end else {
            until[principal] = nil
            return false
        }
        dropped += 1
        return true
    }

    /// `connection` was told at `now` to wait `milliseconds`: its requests before then are dropped.
    public mutating func refused(_ connection: Caller, retryAfterMs milliseconds: Int, now: Double) {
        guard let role = connection.role, Self.heldRoles.contains(role), !connection.onBehalf else { return }
        if until[connection.name] == nil, until.count >= Self.maxHeld {
            prune(now: now)
            guard until.count < Self.maxHeld else { return }
        }
        until[connection.name] = now + Double(max(0, milliseconds)) / 1_000
    }

    /// Forgets the principals whose wait is over.
    public mutating func prune(now: Double) {
        until = until.filter { $0.value > now }
    }

    /// The roles whose keys are one person's or device's.
    static let heldRoles: Set<Role> = [.phone, .kiosk, .kitchen, .operator]
}
