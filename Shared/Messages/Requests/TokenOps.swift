/// `token.issue`, `token.list`, `token.revoke` (the HTTP edge, operator only): the long-lived
/// bearer tokens of kiosks and kitchen tablets (`cafectl tokens issue|list|revoke`), and revoking
/// any session by its public id. A token appears once, in `token.issue`'s reply; lists show ids.
public struct TokenIssueRequest: Codable, Sendable, Equatable {
    /// `kiosk`, `kitchen`, or `operator` (the status page's, issue 29).
    public var kind: String
    /// The café the device serves; none for an operator's token.
    public var cafeId: String?
    /// The operator's name for the device ("counter-left"): 1–64 of A–Z a–z 0–9 - _ .
    public var label: String?
    /// How long the token lasts, 1–400 days (default 365).
    public var lifetimeDays: Int?

    public init(kind: String, cafeId: String?, label: String? = nil, lifetimeDays: Int? = nil) {
        self.kind = kind
        self.cafeId = cafeId
        self.label = label
        self.lifetimeDays = lifetimeDays
    }
}

/// One session as the token ops show it: never its token.
public struct TokenSession: Codable, Sendable, Equatable {
    public var sessionId: String
    /// `user`, `guest`, `kiosk` or `kitchen`.
    public var kind: String
    public var userId: String?
    public var deviceId: String?
    public var cafeId: String?
    public var label: String?
    public var createdAt: Timestamp
    public var expiresAt: Timestamp
    public var revokedAt: Timestamp?

    public init(sessionId: String, kind: String, userId: String?, deviceId: String?, cafeId: String?, label: String?,
                createdAt: Timestamp, expiresAt: Timestamp, revokedAt: Timestamp?) {
        self.sessionId = sessionId
        self.kind = kind
        self.userId = userId
        self.deviceId = deviceId
        self.cafeId = cafeId
        self.label = label
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }
}

/// `token.issue`'s reply: the bearer token (shown this once) and its session.
public struct TokenIssued: Codable, Sendable, Equatable {
    public var token: String
    public var session: TokenSession

    public init(token: String, session: TokenSession) {
        self.token = token
        self.session = session
    }
}

/// `token.list`: sessions newest first, of one kind when given, the active ones unless `includeInactive`.
public struct TokenListRequest: Codable, Sendable, Equatable {
    /// `user`, `guest`, `kiosk` or `kitchen`; all kinds when absent.
    public var kind: String?
    public var includeInactive: Bool?
    /// 1–1,000 (default 100).
    public var limit: Int?

    public init(kind: String? = nil, includeInactive: Bool? = nil, limit: Int? = nil) {
        self.kind = kind
        self.includeInactive = includeInactive
        self.limit = limit
    }
}

public struct TokenList: Codable, Sendable, Equatable {
    public var sessions: [TokenSession]
    public init(sessions: [TokenSession]) { self.sessions = sessions }
}

/// `token.revoke`: ends the session with this public id from now on (any kind); its reply is the session.
public struct TokenRevokeRequest: Codable, Sendable, Equatable {
    public var sessionId: String
    public init(sessionId: String) { self.sessionId = sessionId }
}
