import Foundation
import Messages
import Policy
import ServiceRuntime
import ZeroMQ

/// How load-test reaches the platform. Plain mode: as the developer, like every plain client.
/// Deployed mode (`--keys DIR --as NAME`): it watches as NAME, an operator (bus subscription,
/// health, pickup windows), and acts through keys it mints into DIR for the run: a `gateway` for
/// sightings (any device), one `phone` per ordering phone (its own device and user) and one
/// `kitchen` per café (to bump tickets). The minted keys are written in one registry change,
/// awaited until every process has them, and revoked in one change when the run ends.
final class LoadSecurity {
    static let keys = Option<String>(
        "keys", .path, default: "",
        help: "deployed mode: the campus key folder the platform reads (load-test mints its gateway, phone and kitchen keys there and revokes them at the end)")
    static let principal = Option<String>("as", default: "", help: "deployed mode: the operator principal load-test watches as (health, the bus, pickup windows)")
    /// The options of every command that reaches the platform (`scenario`, `run`).
    static var specs: [OptionSpec] { [keys.spec, principal.spec] }

    /// One key load-test makes for the run.
    struct Mint {
        var name: String
        var role: Role
        var deviceId: String? = nil
        var userId: String? = nil
        var cafeId: String? = nil
    }

    /// The security `config` asks for; a wrong `--keys`/`--as` ends the program as a usage error.
    static func from(_ config: Configuration) -> LoadSecurity {
        do {
            return try LoadSecurity(config)
        } catch {
            usageFailure("load-test: \(error)")
        }
    }

    let folder: KeyFolder?
    let observer: SocketSecurity
    private var minted: [String] = []
    private var identities: [String: SocketSecurity] = [:]
    private let logger = Logger(service: "load-test", instance: "load-test", minimum: .warning)

    var isDeployed: Bool { folder != nil }

    init(_ config: Configuration) throws {
        let keys = config[Self.keys], name = config[Self.principal]
        guard !keys.isEmpty else {
            if !name.isEmpty { throw SecurityError("--as \(name) needs --keys DIR, the platform's key folder") }
            folder = nil
            observer = .plain(logger: logger)
            return
        }
        guard !name.isEmpty else { throw SecurityError("--keys \(keys) needs --as NAME, an operator principal of that folder (keys init makes \"operator\")") }
        let folder = KeyFolder(keys)
        self.folder = folder
        observer = try .deployed(folder: folder, as: name, serving: nil, logger: logger)
        guard let role = observer.registry?.current.principal(named: name)?.role, role == .operator else {
            throw SecurityError("--as \(name) must be an operator: load-test reads health and tails the bus as it, and acts through keys it mints")
        }
        identities[name] = observer
    }

    /// Adds `keys` to the folder in one registry change (deployed mode; nothing in plain mode).
    func mint(_ keys: [Mint]) throws {
        guard let folder, !keys.isEmpty else { return }
        try folder.update { registry in
            for key in keys {
                let pair: CurveKeyPair
                do { pair = try CurveKeyPair.generate() } catch { throw SecurityError("cannot make a CURVE key pair: \(error)") }
                do {
                    try registry.add(Principal(name: key.name, role: key.role, publicKey: pair.publicKey, deviceId: key.deviceId, userId: key.userId, cafeId: key.cafeId))
                } catch {
                    throw SecurityError("cannot mint \(key.name): \(error)")
                }
                try folder.writeKeyPair(pair, named: key.name)
                minted.append(key.name)
            }
        }
    }

    /// Revokes every minted key in one registry change and deletes their files. Keys the run
    /// could not revoke (a crash, SIGKILL) carry the run id: `cafectl keys revoke DIR <name>`.
    func revokeMinted() {
        guard let folder, !minted.isEmpty else { return }
        do {
            try folder.update { registry in
                for name in minted { registry.remove(named: name) }
            }
        } catch {
            FileHandle.standardError.write(Data("load-test: could not revoke the run's keys (\(minted.joined(separator: ", "))): \(error)\n".utf8))
        }
        for name in minted { unlink(folder.keyPath(name)) }
        minted.removeAll()
    }

    /// How `name` (the observer in plain mode) secures its sockets.
    func security(as name: String?) throws -> SocketSecurity {
        guard let folder, let name else { return observer }
        if let known = identities[name] { return known }
        let security = try SocketSecurity.deployed(folder: folder, as: name, serving: nil, logger: logger)
        identities[name] = security
        return security
    }

    /// A pipelined client to `peer` (`name@tcp://…`, else `defaultServer`) acting as `name`.
    func pipelined<C>(_ label: String, context: Context, peer: String, defaultServer: String, as name: String?, retrying: Bool = false) throws -> PipelinedClient<C> {
        let server = PeerEndpoint.split(peer, defaultName: defaultServer).name
        return try PipelinedClient<C>(name: label, context: context, endpoint: peer, retrying: retrying, curve: try security(as: name).clientKeys(server: server))
    }

    /// A request client to `peer` acting as `name`.
    func client(context: Context, peer: String, defaultServer: String, as name: String?, timeoutMilliseconds: Int32 = 5_000) throws -> RequestClient {
        try security(as: name).requestClient(context: context, peer: peer, defaultServer: defaultServer, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Connects `socket` to the bus endpoint `peer` as the observer.
    func connectToBus(_ socket: Socket, peer: String) throws {
        let (server, endpoint) = PeerEndpoint.split(peer, defaultName: "bus")
        try observer.secureClient(socket, server: server)
        try socket.connect(endpoint)
    }

    /// Waits until the process behind `peer` has read the minted keys: `name` sends `op` until any
    /// reply comes (a refusal counts: the handshake got through). A process that never does reads
    /// another key folder.
    func awaitAccepted(peer: String, defaultServer: String, as name: String, op: String, body: some Codable & Sendable, context: Context, timeout: Double = 10) throws {
        guard isDeployed else { return }
        let client = try self.client(context: context, peer: peer, defaultServer: defaultServer, as: name, timeoutMilliseconds: 500)
        defer { client.close() }
        let deadline = Reactor.monotonic() + timeout
        let frame = Wire.encode(Request(op: op, body: body))
        while true {
            do {
                _ = try client.send(raw: frame)
                return
            } catch let error as ServiceError where error.code == ErrorCode.clientTimeout.rawValue {
                guard Reactor.monotonic() < deadline else {
                    throw ServiceError(code: "loadtest.setup", message: "\(peer) did not accept load-test's key \(name) within \(Int(timeout)) s: does it read the key folder \(folder?.path ?? "")?")
                }
            }
        }
    }
}
