import Foundation
import Identity
import Messages
import ServiceRuntime
import SQLite

/// The ID tokens that have signed in, by SHA-256, until they expire: an ID token signs in once.
/// The nonce ties a token to the app's authentication request, but a token copied on the way (a
/// log, a proxy) would otherwise sign in again until its `exp`; remembered here it is refused.
/// The edge's own table in its SQLite file (component `edge.idTokens`); on the reactor's thread.
public final class UsedIDTokens {
    private let database: Database

    static let component = "edge.idTokens"
    static let migrations = [
        Migration(1, """
            CREATE TABLE edge_used_id_tokens (
                token_hash BLOB PRIMARY KEY CHECK (length(token_hash) = 32),
                expires_at INTEGER NOT NULL
            );
            CREATE INDEX edge_used_id_tokens_expiry ON edge_used_id_tokens (expires_at);
            """),
    ]

    /// The table in `database`, migrated to this build's schema.
    public init(database: Database) throws {
        self.database = database
        try database.migrate(Self.component, Self.migrations)
    }

    /// Records `token` as used until `expiresAt`; false when it had signed in before.
    public func claim(_ token: String, expiresAt: Timestamp) throws(IdentityError) -> Bool {
        let hash = Data(SHA256.digest(Data(token.utf8)))
        do {
            try database.run("INSERT OR IGNORE INTO edge_used_id_tokens (token_hash, expires_at) VALUES (?, ?)", hash, expiresAt.milliseconds)
            return database.changes == 1
        } catch {
            throw IdentityError(.sessionStorage, "the used ID tokens cannot be stored: \(error)")
        }
    }

    /// Forgets the tokens expired before `now` (they are refused as expired anyway); how many.
    @discardableResult
    public func purge(before now: Timestamp) throws -> Int {
        try database.run("DELETE FROM edge_used_id_tokens WHERE expires_at < ?", now.milliseconds)
        return database.changes
    }
}
