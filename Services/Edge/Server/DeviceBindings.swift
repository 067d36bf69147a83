import Foundation
import Identity
import Messages
import SQLite

/// Which account each device id belongs to at this edge. A device id is something the client
/// says, not a secret: without this, anyone could sign in (or open a guest session) naming
/// another person's device and read its inbox, reminders and location answers. The first
/// session on a device binds it: a guest leaves it unowned until someone signs in on it, a
/// sign-in binds it to that user; afterwards a sign-in of another user, or a guest session, on
/// that device is refused. The edge's own table in its SQLite file (component `edge.devices`).
public final class DeviceBindings {
    private let database: Database

    static let component = "edge.devices"
    static let migrations = [
        Migration(1, """
            CREATE TABLE edge_devices (
                device_id TEXT PRIMARY KEY,
                user_id TEXT,
                bound_at INTEGER NOT NULL
            );
            """),
    ]

    /// The table in `database`, migrated to this build's schema.
    public init(database: Database) throws {
        self.database = database
        try database.migrate(Self.component, Self.migrations)
    }

    /// The user `deviceId` is bound to: nil for a device never seen, `.some(nil)` for a guest's.
    public func owner(of deviceId: String) throws(IdentityError) -> String?? {
        do {
            guard let row = try database.query("SELECT user_id FROM edge_devices WHERE device_id = ?", deviceId).first else { return nil }
            return .some(row.optionalString("user_id"))
        } catch {
            throw IdentityError(.sessionStorage, "the device bindings cannot be read: \(error)")
        }
    }

    /// Binds `deviceId` to `userId` (nil: a guest's, unowned) unless it is already bound to a user.
    public func bind(_ deviceId: String, to userId: String?, at now: Timestamp) throws(IdentityError) {
        do {
            try database.run("""
                INSERT INTO edge_devices (device_id, user_id, bound_at) VALUES (?1, ?2, ?3)
                ON CONFLICT (device_id) DO UPDATE SET user_id = ?2, bound_at = ?3 WHERE user_id IS NULL AND ?2 IS NOT NULL
                """, deviceId, userId, now.milliseconds)
        } catch {
            throw IdentityError(.sessionStorage, "the device binding cannot be stored: \(error)")
        }
    }
}
