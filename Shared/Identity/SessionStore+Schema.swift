import Foundation
import Messages
import SQLite

extension SessionStore {
    /// The migration component in the database's `schema_versions`.
    static let component = "identity.sessions"

    /// The sessions table. `token_hash` is SHA-256 of the token's secret, never the token;
    /// times are milliseconds since 1970; `revoked_at` is NULL until revoked.
    static let migrations = [
        Migration(1, """
            CREATE TABLE identity_sessions (
                id TEXT PRIMARY KEY,
                token_hash BLOB NOT NULL UNIQUE CHECK (length(token_hash) = 32),
                kind TEXT NOT NULL CHECK (kind IN ('user', 'guest', 'kiosk', 'kitchen')),
                user_id TEXT,
                device_id TEXT,
                cafe_id TEXT,
                label TEXT,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                revoked_at INTEGER
            );
            CREATE INDEX identity_sessions_user ON identity_sessions (user_id) WHERE user_id IS NOT NULL;
            CREATE INDEX identity_sessions_expiry ON identity_sessions (expires_at);
            """),
        // The operator's status-page token (issue 29): SQLite cannot widen a CHECK, so the table is rebuilt.
        Migration(2, """
            CREATE TABLE identity_sessions_2 (
                id TEXT PRIMARY KEY,
                token_hash BLOB NOT NULL UNIQUE CHECK (length(token_hash) = 32),
                kind TEXT NOT NULL CHECK (kind IN ('user', 'guest', 'kiosk', 'kitchen', 'operator')),
                user_id TEXT,
                device_id TEXT,
                cafe_id TEXT,
                label TEXT,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                revoked_at INTEGER
            );
            INSERT INTO identity_sessions_2 SELECT id, token_hash, kind, user_id, device_id, cafe_id, label, created_at, expires_at, revoked_at
                FROM identity_sessions;
            DROP TABLE identity_sessions;
            ALTER TABLE identity_sessions_2 RENAME TO identity_sessions;
            CREATE INDEX identity_sessions_user ON identity_sessions (user_id) WHERE user_id IS NOT NULL;
            CREATE INDEX identity_sessions_expiry ON identity_sessions (expires_at);
            """),
    ]

    /// The columns every read selects, in `session(from:)`'s terms.
    static let columns = "id, kind, user_id, device_id, cafe_id, label, created_at, expires_at, revoked_at"

    /// A stored row as a session. A kind the code does not know (a newer build's row) is refused
    /// as storage trouble rather than guessed.
    static func session(from row: Row) throws(IdentityError) -> Session {
        guard let kind = SessionKind(rawValue: row.string("kind")) else {
            throw IdentityError(.sessionStorage, "a stored session has kind \(JOSEHeader.shown(row.string("kind"))), unknown to this build")
        }
        return Session(id: row.string("id"), kind: kind, userId: row.optionalString("user_id"), deviceId: row.optionalString("device_id"),
                       cafeId: row.optionalString("cafe_id"), label: row.optionalString("label"),
                       createdAt: Timestamp(milliseconds: row.int64("created_at")), expiresAt: Timestamp(milliseconds: row.int64("expires_at")),
                       revokedAt: row.optionalInt64("revoked_at").map { Timestamp(milliseconds: $0) })
    }

    /// A failure of the SQLite file, as the store reports it.
    static func storage(_ error: any Error) -> IdentityError {
        if let error = error as? IdentityError { return error }
        return IdentityError(.sessionStorage, "the session store failed: \(error)")
    }
}
