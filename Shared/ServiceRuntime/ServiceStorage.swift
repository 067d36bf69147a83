import Foundation
import SQLite

/// Opens a service's SQLite file the way a service may: a new database only where there is no
/// file; an existing file must be a sound database, checked with `PRAGMA quick_check`, or the
/// service refuses to start (a zero-length or damaged file would otherwise start as an empty
/// database, and every accepted order and every cursor would be silently gone).
public enum ServiceStorage {
    /// Why a database cannot be used; the service logs it and exits 1.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The database at `path`, created when the file does not exist.
    public static func open(path: String) throws -> Database {
        guard FileManager.default.fileExists(atPath: path) else { return try Database(path: path) }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        if size == 0 {
            throw Refusal(description: "database \(path) exists but is empty (0 bytes): it was truncated or replaced, and starting would begin "
                          + "a new empty database; restore it from a backup, or move it away to start afresh")
        }
        let db: Database
        do {
            db = try Database(path: path, create: false)
        } catch {
            throw Refusal(description: "database \(path) cannot be opened: \(error); restore it from a backup, or move it away to start afresh")
        }
        let problems: String?
        do {
            problems = try db.quickCheckProblems()
        } catch {
            problems = "\(error)"
        }
        if let problems {
            db.close()
            throw Refusal(description: "database \(path) is damaged (quick_check: \(problems)); restore it from a backup, or move it away to start afresh")
        }
        return db
    }
}
