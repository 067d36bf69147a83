import Foundation
import Messages
import Policy
import ZeroMQ

/// What `cafectl keys` does to a key folder: create it with a key for every service instance,
/// add a client key, revoke one. Every change rewrites the registry atomically; running
/// processes pick it up within a second (or at once on SIGHUP).
extension KeyFolder {
    /// The service instances `init` makes keys for: the names `deploy/run-local.sh` runs, and
    /// docker-compose's shards.
    public static let serviceInstances: [(name: String, service: String)] = [
        ("bus", "bus"),
        ("beacon-ingest", "beacon-ingest"), ("beacon-ingest-s0", "beacon-ingest"), ("beacon-ingest-s1", "beacon-ingest"),
        ("region-monitor", "region-monitor"), ("region-monitor-s0", "region-monitor"), ("region-monitor-s1", "region-monitor"),
        ("order-service", "order-service"),
        ("kitchen-display", "kitchen-display"),
        ("notification-service", "notification-service"),
    ]

    /// The operator key `init` also makes, so the folder is usable at once (`cafectl --as operator`).
    public static let defaultOperator = "operator"

    /// Creates the folder (0700) with a key pair for every service instance and the operator,
    /// and the registry; refuses a folder that already has a registry.
    @discardableResult
    public func initialize() throws(SecurityError) -> [Principal] {
        if FileManager.default.fileExists(atPath: registryPath) {
            throw SecurityError("\(registryPath) exists; add keys with cafectl keys add, or start from an empty folder")
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SecurityError("cannot create \(path): \(error.localizedDescription)")
        }
        var registry = KeyRegistry()
        var made: [Principal] = []
        let wanted = Self.serviceInstances.map { (name: $0.name, role: Role.service, service: Optional($0.service)) }
            + [(name: Self.defaultOperator, role: Role.operator, service: nil)]
        for entry in wanted {
            let pair = try Self.generate()
            let principal = Principal(name: entry.name, role: entry.role, publicKey: pair.publicKey, service: entry.service)
            do { try registry.add(principal) } catch { throw SecurityError(error.description) }
            try writeKeyPair(pair, named: entry.name)
            made.append(principal)
        }
        try write(registry)
        return made
    }

    /// Reads the registry, lets `change` edit it, and writes it back, holding an exclusive lock on
    /// `DIR/registry.lock` throughout: two writers at once (cafectl keys add during a load-test
    /// run that mints keys) take turns instead of one losing the other's change.
    public func update(_ change: (inout KeyRegistry) throws -> Void) throws {
        let lockPath = (path as NSString).appendingPathComponent("registry.lock")
        let fd = open(lockPath, O_RDWR | O_CREAT, 0o600)
        guard fd >= 0 else { throw SecurityError("cannot open \(lockPath): \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR { throw SecurityError("cannot lock \(lockPath): \(String(cString: strerror(errno)))") }
        }
        defer { flock(fd, LOCK_UN) }
        var registry = try registry()
        try change(&registry)
        try write(registry)
    }

    /// Creates and registers a key for a new principal; refuses a name already registered.
    @discardableResult
    public func add(name: String, role: Role, service: String? = nil, deviceId: String? = nil, userId: String? = nil, cafeId: String? = nil) throws(SecurityError) -> Principal {
        let pair = try Self.generate()
        let principal = Principal(name: name, role: role, publicKey: pair.publicKey, service: service, deviceId: deviceId, userId: userId, cafeId: cafeId)
        do {
            try update { registry in try register(principal, pair: pair, in: &registry) }
        } catch {
            throw Self.securityError(error)
        }
        return principal
    }

    /// Adds `principal` to `registry` and writes its key file (inside `update`).
    private func register(_ principal: Principal, pair: CurveKeyPair, in registry: inout KeyRegistry) throws(SecurityError) {
        do { try registry.add(principal) } catch { throw SecurityError(error.description) }
        if FileManager.default.fileExists(atPath: keyPath(principal.name)) {
            throw SecurityError("\(keyPath(principal.name)) exists from an earlier key; remove it first")
        }
        try writeKeyPair(pair, named: principal.name)
    }

    /// Removes `name` from the registry and deletes its secret key: its next request is refused
    /// and its next handshake fails, in every process, within a second.
    @discardableResult
    public func revoke(name: String) throws(SecurityError) -> Principal {
        var removed: Principal?
        do {
            try update { registry in removed = registry.remove(named: name) }
        } catch {
            throw Self.securityError(error)
        }
        guard let removed else { throw SecurityError("no principal named \(name) in \(registryPath)") }
        unlink(keyPath(name))
        return removed
    }

    static func securityError(_ error: any Error) -> SecurityError {
        (error as? SecurityError) ?? SecurityError("\(error)")
    }

    static func generate() throws(SecurityError) -> CurveKeyPair {
        do { return try CurveKeyPair.generate() } catch { throw SecurityError("cannot make a CURVE key pair: \(error)") }
    }
}
