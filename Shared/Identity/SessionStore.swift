import Foundation
import Messages
import SQLite

/// Bearer sessions in SQLite: issued with a fresh random token, looked up by the token's
/// SHA-256, listed and revoked by their public id. The token itself is never stored, never
/// logged (this type logs nothing), and returned once, by `issue`.
///
/// The clock is injected: expiry is decided against `clock.now()`, so a test moves time by hand.
/// Like the `Database` it uses, a store belongs to one thread.
public final class SessionStore {
    private let database: Database
    private let clock: any WallClock

    /// The most sessions one `list` returns.
    public static let maxListed = 1_000
    /// The longest operator label: an id with dots allowed, 1–64 bytes.
    public static let maxLabelBytes = 64

    /// A store on `database`, whose schema is migrated to this build's (component `identity.sessions`).
    public init(database: Database, clock: any WallClock) throws(IdentityError) {
        self.database = database
        self.clock = clock
        do { try database.migrate(Self.component, Self.migrations) } catch { throw Self.storage(error) }
    }

    /// Issues a session of `kind` for `principal`, expiring after `lifetime` seconds (the kind's
    /// default when nil). Returns the session and its token: the token's only appearance.
    /// A principal or lifetime the kind does not allow is `session.invalid`, and nothing is stored.
    public func issue(_ kind: SessionKind, for principal: SessionPrincipal, label: String? = nil,
                      lifetime: Double? = nil) throws(IdentityError) -> (session: Session, token: SessionToken) {
        try principal.check(for: kind)
        if let label, !TextRules.isToken(label, max: Self.maxLabelBytes, allowingDots: true) {
            throw IdentityError(.sessionInvalid, "a label must be 1–\(Self.maxLabelBytes) of A–Z a–z 0–9 - _ .")
        }
        let seconds = lifetime ?? kind.defaultLifetime
        guard seconds.isFinite, kind.lifetimes.contains(seconds) else {
            throw IdentityError(.sessionInvalid, "a \(kind.rawValue) session lasts \(Int(kind.lifetimes.lowerBound))–\(Int(kind.lifetimes.upperBound)) s")
        }
        let token = try SessionToken.generate()
        let id = "s" + (try OpenSSL.randomBytes(12)).map { String(format: "%02x", $0) }.joined()
        let now = clock.now()
        let session = Session(id: id, kind: kind, userId: principal.userId, deviceId: principal.deviceId, cafeId: principal.cafeId,
                              label: label, createdAt: now, expiresAt: now.adding(seconds: seconds), revokedAt: nil)
        do {
            try database.run("""
                INSERT INTO identity_sessions (id, token_hash, kind, user_id, device_id, cafe_id, label, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, session.id, Data(token.hash), kind.rawValue, session.userId, session.deviceId, session.cafeId, label,
                session.createdAt.milliseconds, session.expiresAt.milliseconds)
        } catch {
            throw Self.storage(error)
        }
        return (session, token)
    }

    /// The active session `presented` is the token of. Refuses a token of the wrong shape
    /// (`session.malformed`), one never issued (`session.unknown`), a revoked one
    /// (`session.revoked`) and an expired one (`session.expired`), in that order.
    public func authenticate(_ presented: String) throws(IdentityError) -> Session {
        let token = try SessionToken(presented: presented)
        let rows: [Row]
        do {
            rows = try database.query("SELECT \(Self.columns) FROM identity_sessions WHERE token_hash = ?", Data(token.hash))
        } catch {
            throw Self.storage(error)
        }
        guard let row = rows.first else { throw IdentityError(.sessionUnknown, "no session has this token") }
        let session = try Self.session(from: row)
        if let revoked = session.revokedAt { throw IdentityError(.sessionRevoked, "session \(session.id) was revoked at \(revoked)") }
        guard session.isActive(at: clock.now()) else { throw IdentityError(.sessionExpired, "session \(session.id) expired at \(session.expiresAt)") }
        return session
    }

    /// The session with public id `id`, active or not; `session.notFound` when there is none.
    public func session(id: String) throws(IdentityError) -> Session {
        let rows: [Row]
        do { rows = try database.query("SELECT \(Self.columns) FROM identity_sessions WHERE id = ?", id) } catch { throw Self.storage(error) }
        guard let row = rows.first else { throw IdentityError(.sessionNotFound, "no session has id \(JOSEHeader.shown(id))") }
        return try Self.session(from: row)
    }

    /// Sessions, newest first: of one kind and one user when given, only the active ones unless
    /// `includeInactive`; at most `limit` (held to 1–`maxListed`).
    public func list(kind: SessionKind? = nil, userId: String? = nil, includeInactive: Bool = false, limit: Int = 100) throws(IdentityError) -> [Session] {
        let now = clock.now().milliseconds
        do {
            return try database.query("""
                SELECT \(Self.columns) FROM identity_sessions
                WHERE (?1 IS NULL OR kind = ?1) AND (?2 IS NULL OR user_id = ?2)
                  AND (?3 OR (revoked_at IS NULL AND expires_at > ?4))
                ORDER BY created_at DESC, id LIMIT ?5
                """, kind?.rawValue, userId, includeInactive, now, min(max(limit, 1), Self.maxListed)).map { row throws(IdentityError) in
                try Self.session(from: row)
            }
        } catch {
            throw Self.storage(error)
        }
    }

    /// Revokes the session with public id `id` from now on; `session.notFound` when there is
    /// none. Revoking a revoked session changes nothing and returns it as it was.
    @discardableResult
    public func revoke(id: String) throws(IdentityError) -> Session {
        let now = clock.now()
        do {
            try database.run("UPDATE identity_sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", now.milliseconds, id)
        } catch {
            throw Self.storage(error)
        }
        return try session(id: id)
    }

    /// Deletes sessions that expired or were revoked before `cutoff`, so the table holds what
    /// is active plus a recent history; returns how many went.
    @discardableResult
    public func purge(endedBefore cutoff: Timestamp) throws(IdentityError) -> Int {
        do {
            try database.run("DELETE FROM identity_sessions WHERE expires_at < ?1 OR revoked_at < ?1", cutoff.milliseconds)
        } catch {
            throw Self.storage(error)
        }
        return database.changes
    }
}
