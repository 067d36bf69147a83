import Foundation
import Messages
import Policy
import ZeroMQ

/// How one process secures its sockets, in one of two modes (DESIGN.md §8, issue 13):
///
/// - `plain`: no encryption, every caller the trusted developer. Binds only loopback; a bind off
///   loopback is refused unless `--insecure-plain`, and then a warning is logged every minute.
/// - `deployed`: CURVE everywhere (the ZeroMQ guide's Ironhouse). The process holds its own key
///   pair; every bound socket is a CURVE server whose clients the process's ZAP handler checks
///   against the key registry; every connecting socket is a CURVE client that knows its server's
///   public key, found in the registry by the server's principal name.
///
/// A server socket made before the ZAP handler runs would accept any key, so `secureServer`
/// refuses to make one.
public final class SocketSecurity {
    public enum Mode: String, Sendable, CaseIterable { case plain, deployed }

    public let mode: Mode
    /// This process's principal name (its key file is `<keys>/<name>.key`).
    public let name: String
    public let identity: CurveKeyPair?
    public let registry: LiveRegistry?
    public let zap: ZAPHandler?
    private let allowNonLoopback: Bool
    private let logger: Logger
    /// What every listening socket bounds: accept queue, handshake time, connections per address and listener.
    public let limits: ListenerLimits

    private init(mode: Mode, name: String, identity: CurveKeyPair?, registry: LiveRegistry?, zap: ZAPHandler?, allowNonLoopback: Bool, logger: Logger,
                 limits: ListenerLimits) {
        self.mode = mode
        self.name = name
        self.identity = identity
        self.registry = registry
        self.zap = zap
        self.allowNonLoopback = allowNonLoopback
        self.logger = logger
        self.limits = limits
    }

    /// Plain mode.
    public static func plain(allowNonLoopback: Bool = false, logger: Logger, limits: ListenerLimits = .defaults) -> SocketSecurity {
        SocketSecurity(mode: .plain, name: "developer", identity: nil, registry: nil, zap: nil, allowNonLoopback: allowNonLoopback, logger: logger, limits: limits)
    }

    /// Deployed mode as principal `name`, with the keys in `folder`. With `serving` context the
    /// ZAP handler is started in it (a process that binds); without, the process only connects.
    public static func deployed(folder: KeyFolder, as name: String, serving context: Context?, logger: Logger,
                                limits: ListenerLimits = .defaults) throws -> SocketSecurity {
        guard Context.has("curve") else { throw SecurityError("this libzmq was built without CURVE; deployed mode needs it (Debian's libzmq5 has it)") }
        let identity = try folder.keyPair(named: name)
        let registry = try LiveRegistry(folder: folder)
        guard let principal = registry.current.principal(named: name), principal.publicKey == identity.publicKey else {
            throw SecurityError("\(name) is not in \(folder.registryPath) with the key in \(folder.keyPath(name))")
        }
        var zap: ZAPHandler?
        if let context {
            let handler = ZAPHandler(registry: registry, logger: logger, limits: limits)
            try handler.start(in: context)
            zap = handler
        }
        return SocketSecurity(mode: .deployed, name: name, identity: identity, registry: registry, zap: zap, allowNonLoopback: true, logger: logger, limits: limits)
    }

    /// `--security`: plain or deployed.
    public static let modeOption = Option<Mode>.choice("security", default: .plain,
                                                      help: "plain: no CURVE, loopback only (development); deployed: CURVE on every socket, callers known by their keys")
    /// `--keys`: the key folder in deployed mode.
    public static let keysOption = Option<String>("keys", .path, default: "",
                                                  help: "deployed mode: the key folder (registry and this process's <instance>.key; cafectl keys init makes it)")
    /// `--insecure-plain`: plain mode off loopback.
    public static let insecurePlainOption = Option.flag("insecure-plain", default: false,
                                                        help: "plain mode: allow binding off loopback (warns every minute; never on a campus network)")

    /// The options every process that uses the mode reads.
    public static var specs: [OptionSpec] { [modeOption.spec, keysOption.spec, insecurePlainOption.spec] + ListenerLimits.specs }

    /// The mode `config` asks for (which must include `specs`), as principal `name`.
    public static func from(_ config: Configuration, name: String, serving context: Context?, logger: Logger) throws -> SocketSecurity {
        let limits = ListenerLimits(config)
        switch config[modeOption] {
        case .plain:
            return plain(allowNonLoopback: config[insecurePlainOption], logger: logger, limits: limits)
        case .deployed:
            let keys = config[keysOption]
            guard !keys.isEmpty else { throw SecurityError("deployed mode needs --keys <folder> (cafectl keys init <folder> makes one)") }
            return try deployed(folder: KeyFolder(keys), as: name, serving: context, logger: logger, limits: limits)
        }
    }

    // MARK: Sockets

    /// Makes `socket` a server for `endpoint` (call before `bind`): a CURVE server in deployed
    /// mode, once the ZAP handler runs; in plain mode, refuses an endpoint off loopback.
    ///
    /// `admitting` limits who may connect at all to keys of those roles (deployed mode), for a
    /// socket whose every message is for a few (the bus's capture socket: operators).
    public func secureServer(_ socket: Socket, endpoint: String, admitting roles: Set<Role>? = nil) throws {
        try limits.apply(to: socket)
        switch mode {
        case .plain:
            if !Self.isLoopback(endpoint) && !allowNonLoopback {
                throw SecurityError("plain mode binds only loopback, not \(endpoint): run deployed mode (--security deployed --keys DIR), or pass --insecure-plain on a network you trust")
            }
        case .deployed:
            guard let zap, zap.isRunning, let identity else {
                throw SecurityError("refusing to bind \(endpoint) in deployed mode without a running ZAP handler: libzmq would accept any CURVE key")
            }
            try socket.setCurveServer(secretKey: identity.secretKey)
            try zap.watch(socket)
            if let roles {
                let domain = "campus:" + Role.allCases.filter(roles.contains).map(\.rawValue).joined(separator: ",")
                zap.restrict(domain: domain, to: roles)
                try socket.setZAPDomain(domain)
            } else {
                try socket.setZAPDomain("campus")
            }
        }
    }

    /// Makes `socket` a CURVE client of the server named `server` (call before `connect`); a
    /// no-op in plain mode.
    public func secureClient(_ socket: Socket, server: String) throws {
        guard mode == .deployed, let identity, let registry else { return }
        guard let principal = registry.current.principal(named: server) else {
            throw SecurityError("no key for server \(Quoting.quoted(server)) in the key registry; name it in the endpoint as name@tcp://host:port")
        }
        try socket.setCurveClient(serverKey: principal.publicKey, publicKey: identity.publicKey, secretKey: identity.secretKey)
    }

    /// Client keys for a `RequestClient` to the server named `server` (nil in plain mode).
    public func clientKeys(server: String) throws -> RequestClient.CurveClientKeys? {
        guard mode == .deployed, let identity, let registry else { return nil }
        guard let principal = registry.current.principal(named: server) else {
            throw SecurityError("no key for server \(Quoting.quoted(server)) in the key registry; name it in the endpoint as name@tcp://host:port")
        }
        return RequestClient.CurveClientKeys(serverKey: principal.publicKey, keyPair: identity)
    }

    /// A request client for `peer` ("name@tcp://host:port", or an endpoint whose server is `defaultServer`).
    public func requestClient(context: Context, peer: String, defaultServer: String, timeoutMilliseconds: Int32 = 5_000) throws -> RequestClient {
        let (server, endpoint) = PeerEndpoint.split(peer, defaultName: defaultServer)
        return RequestClient(context: context, endpoint: endpoint, timeoutMilliseconds: timeoutMilliseconds, curve: try clientKeys(server: server))
    }

    // MARK: Callers

    /// Who sent a message, from the properties its connection carries: the developer in plain
    /// mode; in deployed mode the registry's principal for the User-Id, if it still holds the key
    /// the session was opened with. nil: refuse (a key revoked since the handshake).
    public func caller(userId: String?, key: String?) -> Caller? {
        guard mode == .deployed else { return .developer }
        guard let userId, let registry, let principal = registry.current.principal(named: userId) else { return nil }
        if let key, key != principal.publicKey { return nil }
        return Caller(principal: principal)
    }

    /// Starts what the mode runs on the reactor: registry reloads (deployed), the insecure-plain
    /// warning (plain off loopback).
    public func attach(to reactor: Reactor) {
        if let registry { registry.attach(to: reactor, logger: logger) }
        if mode == .plain && allowNonLoopback {
            let warn = { [logger] in logger.warning("insecure plain mode: sockets may be bound off loopback with no encryption and no authentication; anyone who can reach them can forge events and act as any user", [:]) }
            warn()
            reactor.every(60, name: "insecure-plain.warning") { warn() }
        }
    }

    /// Stops the ZAP handler (after every server socket is closed).
    public func close() { zap?.stop() }

    /// Health details: the mode and, deployed, the handshake counts.
    public var healthDetails: [String: String] {
        var details = ["security": mode.rawValue]
        if let zap {
            details["zap.accepted"] = "\(zap.accepted)"
            details["zap.refused"] = "\(zap.refused)"
            for (reason, count) in zap.refusedByReason { details["zap.refused.\(reason)"] = "\(count)" }
            let census = zap.censusSnapshot
            details["connections.held"] = "\(census.held)"
            details["connections.accepted"] = "\(census.accepted)"
            details["connections.refused.perAddress"] = "\(census.refusedPerAddress)"
            details["connections.refused.perListener"] = "\(census.refusedPerListener)"
            details["handshakes.failed.protocol"] = "\(census.failedProtocol)"
            details["handshakes.failed.noDetail"] = "\(census.failedNoDetail)"
        }
        if let registry { details["keys.count"] = "\(registry.current.principals.count)" }
        return details
    }

    /// Whether a socket with no security of its own (the edge's plain-HTTP metrics listener) may
    /// bind `endpoint`: plain mode keeps to loopback unless told otherwise, as `secureServer` does.
    public func mayBindUnsecured(_ endpoint: String) -> Bool {
        mode == .deployed || allowNonLoopback || Self.isLoopback(endpoint)
    }

    /// Whether a bind address stays on this machine.
    public static func isLoopback(_ endpoint: String) -> Bool {
        if endpoint.hasPrefix("inproc://") || endpoint.hasPrefix("ipc://") { return true }
        guard endpoint.hasPrefix("tcp://") else { return false }
        let rest = endpoint.dropFirst("tcp://".count)
        // A bind may name an interface ("tcp://lo:7401") or an address.
        if rest.hasPrefix("127.") || rest.hasPrefix("localhost:") || rest.hasPrefix("[::1]:") || rest.hasPrefix("lo:") { return true }
        return false
    }
}

/// An endpoint a client dials, optionally with the principal name of the server behind it:
/// `region-monitor-s0@tcp://region-monitor-s0:7420`. The name finds the server's key in the
/// registry; without one, the role's usual name ("bus", "region-monitor") is used.
public enum PeerEndpoint {
    public static func split(_ value: String, defaultName: String) -> (name: String, endpoint: String) {
        guard let at = value.range(of: "@"), let scheme = value.range(of: "://"), at.lowerBound < scheme.lowerBound else { return (defaultName, value) }
        return (String(value[..<at.lowerBound]), String(value[at.upperBound...]))
    }

    /// The endpoint alone, for libzmq.
    public static func endpoint(_ value: String) -> String { split(value, defaultName: "").endpoint }
}
