import Foundation
import Messages
import Policy
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// The deployed-mode foundation in one process: keys in a folder, the registry, the ZAP handler,
/// CURVE server and client sockets, and the caller a request arrives with.
@Suite("Deployed mode: keys, ZAP, callers")
struct DeployedModeTests {
    let folder: KeyFolder
    let logger = Logger(service: "test", instance: "test", minimum: .error)

    init() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)").path
        folder = KeyFolder(path)
        try folder.initialize()
        try folder.add(name: "phone-ana", role: .phone, deviceId: "D-ANA", userId: "ana")
    }

    /// A REP server secured as `server`, and a request sent on a fresh CURVE client as `client`.
    func roundTrip(server: SocketSecurity, clientSecurity: SocketSecurity?, context: Context, timeout: Int32 = 1_500,
                   admitting roles: Set<Role>? = nil) throws -> PeerMessage? {
        let rep = try Socket(context, .rep)
        defer { rep.close() }
        try rep.setLinger(milliseconds: 0)
        try server.secureServer(rep, endpoint: "tcp://127.0.0.1:*", admitting: roles)
        try rep.bind("tcp://127.0.0.1:*")
        let req = try Socket(context, .req)
        defer { req.close() }
        try req.setLinger(milliseconds: 0)
        if let clientSecurity { try clientSecurity.secureClient(req, server: server.name) }
        try req.connect(try rep.lastEndpoint)
        try req.send("hello", dontWait: true)
        guard try Poller.wait(for: rep, events: .readable, timeoutMilliseconds: timeout) else { return nil }
        return try rep.tryReceivePeerMessage()
    }

    @Test("a registered key gets a session whose User-Id and X-Key name its principal")
    func registeredKey() throws {
        let context = try Context()
        let server = try SocketSecurity.deployed(folder: folder, as: "order-service", serving: context, logger: logger)
        defer { server.close() }
        let phone = try SocketSecurity.deployed(folder: folder, as: "phone-ana", serving: nil, logger: logger)
        let message = try #require(try roundTrip(server: server, clientSecurity: phone, context: context))
        #expect(message.userId == "phone-ana")
        #expect(message.publicKey == (try folder.keyPair(named: "phone-ana")).publicKey)
        let caller = try #require(server.caller(userId: message.userId, key: message.publicKey))
        #expect(caller.role == .phone)
        #expect(caller.principal?.deviceId == "D-ANA")
        #expect(server.zap?.accepted == 1)
    }

    @Test("an unknown key, and a plain client, get no session")
    func unknownKeyRefused() throws {
        let context = try Context()
        let server = try SocketSecurity.deployed(folder: folder, as: "order-service", serving: context, logger: logger)
        defer { server.close() }
        // A key pair of its own, not in the registry, that knows the server's public key.
        let stranger = KeyFolder(folder.path + "-stranger")
        try stranger.initialize()
        try KeyFolder.copyRegistry(from: folder, to: stranger)
        let outsider = try SocketSecurity.deployed(folder: stranger, as: "phone-ana-impostor", serving: nil, logger: logger)
        #expect(try roundTrip(server: server, clientSecurity: outsider, context: context, timeout: 500) == nil)
        #expect(try roundTrip(server: server, clientSecurity: nil, context: context, timeout: 500) == nil)
        #expect((server.zap?.refused ?? 0) >= 1)
    }

    @Test("a revoked key's open session is refused as a caller after the registry reloads")
    func revokedKeyRefusedAsCaller() throws {
        let context = try Context()
        let server = try SocketSecurity.deployed(folder: folder, as: "order-service", serving: context, logger: logger)
        defer { server.close() }
        let phone = try SocketSecurity.deployed(folder: folder, as: "phone-ana", serving: nil, logger: logger)
        let message = try #require(try roundTrip(server: server, clientSecurity: phone, context: context))
        try folder.revoke(name: "phone-ana")
        #expect(server.registry?.reloadIfNeeded(logger: logger) == true)
        #expect(server.caller(userId: message.userId, key: message.publicKey) == nil)
        // And its next handshake fails.
        #expect(try roundTrip(server: server, clientSecurity: phone, context: context, timeout: 500) == nil)
    }

    @Test("a socket that admits only operators gives a phone no session, and the operator one")
    func socketAdmittingOnlyOperators() throws {
        let context = try Context()
        let server = try SocketSecurity.deployed(folder: folder, as: "bus", serving: context, logger: logger)
        defer { server.close() }
        let phone = try SocketSecurity.deployed(folder: folder, as: "phone-ana", serving: nil, logger: logger)
        let operatorKey = try SocketSecurity.deployed(folder: folder, as: "operator", serving: nil, logger: logger)
        #expect(try roundTrip(server: server, clientSecurity: phone, context: context, timeout: 500, admitting: [.operator]) == nil)
        #expect(try roundTrip(server: server, clientSecurity: operatorKey, context: context, admitting: [.operator])?.userId == "operator")
        // The restriction is the socket's: the same phone is admitted where every key is.
        #expect(try roundTrip(server: server, clientSecurity: phone, context: context)?.userId == "phone-ana")
    }

    @Test("deployed mode will not make a server socket without a running ZAP handler")
    func noServerWithoutZAP() throws {
        let context = try Context()
        let clientOnly = try SocketSecurity.deployed(folder: folder, as: "order-service", serving: nil, logger: logger)
        let rep = try Socket(context, .rep)
        defer { rep.close() }
        #expect(throws: SecurityError.self) { try clientOnly.secureServer(rep, endpoint: "tcp://127.0.0.1:*") }
    }

    @Test("plain mode refuses to bind off loopback unless told it is insecure")
    func plainLoopbackOnly() throws {
        let context = try Context()
        let rep = try Socket(context, .rep)
        defer { rep.close() }
        let plain = SocketSecurity.plain(logger: logger)
        for endpoint in ["tcp://0.0.0.0:7401", "tcp://*:7401", "tcp://10.1.2.3:7401", "tcp://eth0:7401"] {
            #expect(throws: SecurityError.self, "\(endpoint)") { try plain.secureServer(rep, endpoint: endpoint) }
        }
        for endpoint in ["tcp://127.0.0.1:7401", "tcp://localhost:7401", "tcp://[::1]:7401", "ipc:///tmp/x", "inproc://x"] {
            try plain.secureServer(rep, endpoint: endpoint)
        }
        try SocketSecurity.plain(allowNonLoopback: true, logger: logger).secureServer(rep, endpoint: "tcp://0.0.0.0:7401")
    }

    @Test("two writers adding keys at once both land: the registry is changed under a lock")
    func concurrentWritersTakeTurns() throws {
        let folder = self.folder
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            for n in 0..<15 { _ = try? folder.add(name: "gateway-\(writer)-\(n)", role: .gateway) }
        }
        let names = Set(try folder.registry().principals.map(\.name))
        for writer in 0..<2 { for n in 0..<15 { #expect(names.contains("gateway-\(writer)-\(n)")) } }
    }

    @Test("secret key files are written 0600 and a readable one is refused")
    func secretKeyFileMode() throws {
        var info = stat()
        #expect(stat(folder.keyPath("phone-ana"), &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        chmod(folder.keyPath("phone-ana"), 0o644)
        #expect(throws: SecurityError.self) { try folder.keyPair(named: "phone-ana") }
    }

    @Test("the registry holds the HTTP edge's key, without a scope")
    func edgeKey() throws {
        let key = try CurveKeyPair.generate().publicKey
        let registry = try KeyRegistry(text: "\(key) edge edge\n")
        #expect(registry.principal(named: "edge")?.role == .edge)
        #expect(registry.principal(named: "edge")?.summary == "edge edge")
    }

    @Test("the registry refuses bad lines, naming the line", arguments: [
        ("x bus service service=bus", "not a 40-character"),
        ("KEY phone-1 phone device=D", "needs device"),
        ("KEY k kitchen", "needs cafe"),
        ("KEY o operator cafe=macs", "no scope"),
        ("KEY e edge user=alice", "no scope"),
        ("KEY s service service=mallory", "service key needs"),
        ("KEY p wizard", "unknown role"),
        ("KEY p phone device=D user=U colour=red", "unknown or repeated scope"),
    ])
    func registryRefusals(line: String, problem: String) throws {
        let key = try CurveKeyPair.generate().publicKey
        let text = "# a comment\n\n" + line.replacingOccurrences(of: "KEY", with: key) + "\n"
        do {
            _ = try KeyRegistry(text: text)
            Issue.record("\(line) was accepted")
        } catch {
            #expect(error.line == 3)
            #expect(error.message.contains(problem), "\(error)")
        }
    }

    @Test("the op table: every role but the developer is held to it")
    func opTable() throws {
        let phone = Caller(principal: Principal(name: "p", role: .phone, publicKey: "", deviceId: "D", userId: "U"))
        let op = Caller(principal: Principal(name: "o", role: .operator, publicKey: ""))
        #expect(OpAccess.refusal(op: Op.orderPlace, caller: .developer) == nil)
        #expect(OpAccess.refusal(op: Op.orderPlace, caller: phone) == nil)
        #expect(OpAccess.refusal(op: Op.orderPlace, caller: op)?.code == "auth.forbidden")
        #expect(OpAccess.refusal(op: "no.such.op", caller: op)?.code == "auth.forbidden")
        #expect(try phone.actingUser(nil) == "U")
        #expect(throws: ServiceError.self) { try phone.actingUser("someone-else") }
        #expect(try op.actingUser("someone") == "someone")
    }

    @Test("an id the op needs: a phone's left-out id is its key's; anyone else leaving it out gets request.invalidField naming the field")
    func requiredIdentity() throws {
        let phone = Caller(principal: Principal(name: "p", role: .phone, publicKey: "", deviceId: "D", userId: "U"))
        let guest = Caller(principal: Principal(name: "clip", role: .phone, publicKey: "", deviceId: "G"))
        let op = Caller(principal: Principal(name: "o", role: .operator, publicKey: ""))
        #expect(try phone.actingUser(required: nil) == "U" && phone.actingDevice(required: nil) == "D")
        #expect(try phone.actingDevice(required: "D") == "D")
        #expect(errorCode { try phone.actingDevice(required: "E") } == "auth.forbidden")
        #expect(try guest.actingDevice(required: nil) == "G")
        let guestUser = serviceError { try guest.actingUser(required: nil) }
        #expect(guestUser?.code == "request.invalidField" && guestUser?.message.hasPrefix("missing field body.userId") == true, "\(String(describing: guestUser))")
        #expect(serviceError { try op.actingDevice(required: nil) } == ServiceError(.invalidField, "missing field body.deviceId"))
        #expect(serviceError { try Caller.developer.actingUser(required: nil) } == ServiceError(.invalidField, "missing field body.userId"))
        #expect(try op.actingDevice(required: "any") == "any")
    }
}

extension KeyFolder {
    /// Gives `target` the registry of `source` plus a key pair of its own under a new name, so
    /// it knows every server's key but its own key is one `source`'s registry does not hold.
    static func copyRegistry(from source: KeyFolder, to target: KeyFolder) throws {
        var registry = try source.registry()
        let pair = try CurveKeyPair.generate()
        try registry.add(Principal(name: "phone-ana-impostor", role: .phone, publicKey: pair.publicKey, deviceId: "D-ANA", userId: "ana"))
        try target.writeKeyPair(pair, named: "phone-ana-impostor")
        try target.write(registry)
    }
}
