import Foundation
import SQLite

/// Opens a service's SQLite file the way a service may: a new database only where there is no
/// file; an existing file must be a sound database, checked with `PRAGMA quick_check`, or the
/// service refuses to start (a zero-length or damaged file would otherwise start as an empty
/// database, and every accepted order and every cursor would be silently gone).
///
/// The check reads every page: 1.8 s of region-monitor's restart with 10⁶ devices (a 1.1 GB
/// file), a quarter of it. So it runs on a connection and thread of its own while the service
/// restores its state (`IntegrityCheck`), and the service serves nothing before it has passed
/// (`ServiceLaunch` waits for it before the reactor runs, and names it first when the start
/// failed). A file that cannot be opened, or is empty, is still refused at once.
public enum ServiceStorage {
    /// Why a database cannot be used; the service logs it and exits 1.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The database at `path`, created when the file does not exist, checked before it returns.
    public static func open(path: String) throws -> Database {
        let (db, check) = try openChecking(path: path)
        if let check, let refusal = check.refusal() {
            db.close()
            throw refusal
        }
        return db
    }

    /// The database at `path`, created when the file does not exist; an existing file's
    /// `quick_check` runs meanwhile (`IntegrityCheck.refusal()` waits for its verdict).
    public static func openChecking(path: String) throws -> (Database, IntegrityCheck?) {
        guard FileManager.default.fileExists(atPath: path) else { return (try Database(path: path), nil) }
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
        return (db, IntegrityCheck(path: path))
    }
}

/// `PRAGMA quick_check` of a service's file on a connection and thread of its own.
public final class IntegrityCheck: @unchecked Sendable {
    private let path: String
    private let condition = NSCondition()
    private var verdict: Result<String?, Error>?

    /// Starts the check of the file at `path`.
    init(path: String) {
        self.path = path
        let thread = Thread { [self] in
            let result: Result<String?, Error>
            do {
                let db = try Database(path: path, create: false)
                defer { db.close() }
                result = .success(try db.quickCheckProblems())
            } catch {
                result = .failure(error)
            }
            condition.withLock {
                verdict = result
                condition.broadcast()
            }
        }
        thread.name = "integrity check"
        thread.start()
    }

    /// Waits for the check; the refusal to start when the file is damaged, nil when sound.
    public func refusal() -> ServiceStorage.Refusal? {
        let result = condition.withLock {
            while verdict == nil { condition.wait() }
            return verdict!
        }
        let problems: String?
        switch result {
        case .success(let found): problems = found
        case .failure(let error): problems = "\(error)"
        }
        return problems.map {
            ServiceStorage.Refusal(description: "database \(path) is damaged (quick_check: \($0)); restore it from a backup, or move it away to start afresh")
        }
    }
}
