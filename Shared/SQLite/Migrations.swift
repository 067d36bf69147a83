/// One schema step: the SQL that takes the schema from `version - 1` to `version`.
public struct Migration: Sendable {
    public let version: Int
    public let sql: String

    public init(_ version: Int, _ sql: String) {
        self.version = version
        self.sql = sql
    }
}

extension Database {
    /// The schema version of `component` recorded in this database (0 when never migrated).
    public func schemaVersion(of component: String) throws(SQLiteError) -> Int {
        try execute("CREATE TABLE IF NOT EXISTS schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL)")
        return try query("SELECT version FROM schema_versions WHERE component = ?", component).first?.int("version") ?? 0
    }

    /// Applies every migration of `component` above its recorded version, each in its own
    /// transaction together with the version bump, so a crash leaves the schema at a whole version.
    /// Components (the runtime's outbox, a service's tables) version independently in one file.
    /// A database newer than the code is refused rather than silently used.
    public func migrate(_ component: String, _ migrations: [Migration]) throws {
        let sorted = migrations.sorted { $0.version < $1.version }
        for (offset, migration) in sorted.enumerated() where migration.version != offset + 1 {
            throw SQLiteError(code: 1, message: "migrations of \(component) must be numbered 1, 2, 3… without gaps; found \(migration.version) at position \(offset + 1)", context: "migrate")
        }
        let current = try schemaVersion(of: component)
        if current > sorted.count {
            throw SQLiteError(code: 1, message: "\(component) in \(path) is at schema version \(current), newer than this build (\(sorted.count))", context: "migrate")
        }
        for migration in sorted where migration.version > current {
            try transaction {
                try execute(migration.sql)
                try run("INSERT INTO schema_versions (component, version) VALUES (?, ?) ON CONFLICT(component) DO UPDATE SET version = excluded.version", component, migration.version)
            }
        }
    }
}
