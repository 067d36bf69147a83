import Messages

/// One bearer session as the store keeps it: who it acts as, and when it stops. It never holds
/// the token: only the token's SHA-256 is stored, and the token exists once, in the reply that issued it.
public struct Session: Sendable, Equatable, Hashable {
    /// The session's public id ("s" and 24 hex digits): what lists show and revocation names.
    /// Unrelated to the token, so knowing it gives no way to act as the session.
    public let id: String
    public let kind: SessionKind
    /// The user it acts as (`user`).
    public let userId: String?
    /// The device it acts for (`guest`; `user` when bound to the phone's device).
    public let deviceId: String?
    /// The café (`kiosk`, `kitchen`; a `guest` launched from a café's code).
    public let cafeId: String?
    /// The operator's name for a device token ("counter-left"), when given.
    public let label: String?
    public let createdAt: Timestamp
    public let expiresAt: Timestamp
    public let revokedAt: Timestamp?

    /// Whether the session may still be used at `now`.
    public func isActive(at now: Timestamp) -> Bool { revokedAt == nil && now < expiresAt }
}

/// The principal a new session acts as: the fields its kind requires (`SessionStore.issue`).
public struct SessionPrincipal: Sendable, Equatable, Hashable {
    public var userId: String?
    public var deviceId: String?
    public var cafeId: String?

    public init(userId: String? = nil, deviceId: String? = nil, cafeId: String? = nil) {
        self.userId = userId
        self.deviceId = deviceId
        self.cafeId = cafeId
    }

    /// Refuses (`session.invalid`) fields `kind` does not allow, a missing required one, and
    /// any that is not an id by the platform's rules (1–64 of A–Z a–z 0–9 - _).
    func check(for kind: SessionKind) throws(IdentityError) {
        for (name, value) in [("userId", userId), ("deviceId", deviceId), ("cafeId", cafeId)] {
            if let value, !TextRules.isToken(value, max: 64) {
                throw IdentityError(.sessionInvalid, "\(name) must be 1–64 of A–Z a–z 0–9 - _")
            }
        }
        let (required, allowed): ([String], Set<String>)
        switch kind {
        case .user: (required, allowed) = (["userId"], ["userId", "deviceId"])
        case .guest: (required, allowed) = (["deviceId"], ["deviceId", "cafeId"])
        case .kiosk, .kitchen: (required, allowed) = (["cafeId"], ["cafeId"])
        case .operator: (required, allowed) = ([], [])
        }
        let given = [("userId", userId), ("deviceId", deviceId), ("cafeId", cafeId)].filter { $0.1 != nil }.map(\.0)
        for name in required where !given.contains(name) {
            throw IdentityError(.sessionInvalid, "a \(kind.rawValue) session needs \(name)")
        }
        for name in given where !allowed.contains(name) {
            throw IdentityError(.sessionInvalid, "a \(kind.rawValue) session has no \(name)")
        }
    }
}
