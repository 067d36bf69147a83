import Foundation
import Messages
import Policy
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// Every bound socket of a deployed platform, tried by a client without CURVE, a key the registry
/// does not hold, and a key revoked while its connection is open.
@Suite(.serialized)
struct DeployedSocketTests {
    static let requestSockets = ["bus"] + Platform.services

    /// A key pair that knows every server's public key but is in no registry the platform reads.
    static func stranger(of platform: Platform, _ index: Int = 0) throws -> SocketSecurity {
        let keys = try #require(platform.keys)
        let folder = KeyFolder(platform.root.appendingPathComponent(index == 0 ? "stranger-keys" : "stranger-keys-\(index)").path)
        if !FileManager.default.fileExists(atPath: folder.registryPath) {
            try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
            var registry = try keys.registry()
            let pair = try CurveKeyPair.generate()
            try registry.add(Principal(name: "stranger", role: .operator, publicKey: pair.publicKey))
            try folder.writeKeyPair(pair, named: "stranger")
            try folder.write(registry)
        }
        return try .deployed(folder: folder, as: "stranger", serving: nil, logger: Logger(service: "test", instance: "stranger", minimum: .error))
    }

    @Test("no request socket answers a plain client or an unknown key; each answers the operator")
    func requestSocketsRefuseStrangers() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let stranger = try Self.stranger(of: platform)
        for service in Self.requestSockets {
            let plain = RequestClient(context: context, endpoint: platform.endpoint(service), timeoutMilliseconds: 300)
            let unknown = try stranger.requestClient(context: context, peer: platform.endpoint(service), defaultServer: service, timeoutMilliseconds: 300)
            let known = try platform.client(service, as: "operator", context: context)
            defer { [plain, unknown, known].forEach { $0.close() } }
            #expect(serviceError { try plain.call(Op.health, Empty(), as: HealthStatus.self) }?.code == "client.timeout", "\(service): plain")
            #expect(serviceError { try unknown.call(Op.health, Empty(), as: HealthStatus.self) }?.code == "client.timeout", "\(service): unknown key")
            let health = try known.call(Op.health, Empty(), as: HealthStatus.self)
            #expect(health.details["security"] == "deployed", "\(service)")
            // The unknown key reached the ZAP handler and was turned down there; the plain client
            // never got that far (libzmq drops a NULL-mechanism peer of a CURVE server in the handshake).
            #expect(Int(health.details["zap.refused"] ?? "0") ?? 0 >= 1, "\(service): \(health.details)")
        }
    }

    @Test("refused keys are logged once per reason per 10 s, then summarized: not once per attempt nor per key; health counts them by reason")
    func refusedHandshakesDoNotFloodTheLog() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        try platform.start(busAnd: ["kitchen-display"])
        let context = try Context()
        // Six connections with the same unknown key, one after another, as a client retrying
        // would, and six more with six other unknown keys, as a flood would.
        let strangers = try [Self.stranger(of: platform)] + (1...6).map { try Self.stranger(of: platform, $0) }
        var sockets: [Socket] = []
        defer { sockets.forEach { $0.close() } }
        for i in 0..<12 {
            let socket = try Socket(context, .req)
            try socket.setLinger(milliseconds: 0)
            try strangers[i < 6 ? 0 : i - 5].secureClient(socket, server: "kitchen-display")
            try socket.connect(platform.endpoint("kitchen-display"))
            sockets.append(socket)
        }
        let health = try platform.client("kitchen-display", as: "operator", context: context)
        defer { health.close() }
        _ = try eventually("every handshake refused") { () -> Bool? in
            let details = try health.call(Op.health, Empty(), as: HealthStatus.self).details
            let refused = Int(details["zap.refused.unknownKey"] ?? "0") ?? 0
            return refused >= 12 ? true : nil
        }
        let lines = platform.log("kitchen-display").components(separatedBy: "\n").filter { $0.contains("handshake refused") }
        #expect(lines.count == 1, "\(lines)")
    }

    @Test("a key revoked while connected: its next request is refused after SIGHUP, and it cannot connect again")
    func revokedKeyOnOpenSession() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        let keys = try #require(platform.keys)
        try keys.add(name: "phone-carol", role: .phone, deviceId: "D-carol", userId: "carol")
        try platform.start(busAnd: ["order-service"])
        let context = try Context()
        let phone = try platform.client("order-service", as: "phone-carol", context: context)
        defer { phone.close() }
        _ = try phone.call(Op.preferenceSet, PreferenceRequest(userId: "carol", preference: .closestToMe), as: PreferenceView.self)

        // The security of the phone is loaded before its key is revoked, as a phone would keep it.
        let phoneSecurity = try platform.security(as: "phone-carol")
        try keys.revoke(name: "phone-carol")
        kill(try #require(platform.process("order-service")).processIdentifier, SIGHUP)
        let refusal = try eventually("the open session refused") { () -> ServiceError? in
            let error = serviceError { try phone.call(Op.preferenceGet, PreferenceRequest(userId: "carol"), as: PreferenceView.self) }
            return error?.code == "auth.forbidden" ? error : nil
        }
        #expect(refusal.message.contains("no longer in the campus key registry"), "\(refusal)")
        // A new connection with the revoked key gets no session.
        let again = try phoneSecurity.requestClient(context: context, peer: platform.endpoint("order-service"), defaultServer: "order-service", timeoutMilliseconds: 300)
        defer { again.close() }
        #expect(serviceError { try again.call(Op.preferenceGet, PreferenceRequest(userId: "carol"), as: PreferenceView.self) }?.code == "client.timeout")
        #expect(platform.log("order-service").contains("key registry reloaded"))
    }

    @Test("a subscriber with an unknown key or none hears nothing from the bus; the operator hears heartbeats")
    func busSubscribersNeedKeys() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        try platform.start(busAnd: ["kitchen-display"])
        let context = try Context()
        let stranger = try Self.stranger(of: platform)
        var sockets: [String: Socket] = [:]
        for (name, security) in [("plain", nil), ("stranger", stranger), ("operator", try platform.security(as: "operator"))] as [(String, SocketSecurity?)] {
            let sub = try Socket(context, .sub)
            try sub.setLinger(milliseconds: 0)
            try sub.subscribe("heartbeat.")
            try security?.secureClient(sub, server: "bus")
            try sub.connect(platform.busSub)
            sockets[name] = sub
        }
        defer { sockets.values.forEach { $0.close() } }
        let operatorSub = try #require(sockets["operator"])
        #expect(try operatorSub.receiveMultipart(timeoutMilliseconds: 5_000) != nil, "the operator hears kitchen-display's heartbeat")
        // Two more heartbeats to the operator: what the others would have heard by now, they did not.
        for _ in 0..<2 { #expect(try operatorSub.receiveMultipart(timeoutMilliseconds: 5_000) != nil, "the operator hears heartbeats") }
        #expect(try sockets["plain"]!.tryReceiveMultipart() == nil)
        #expect(try sockets["stranger"]!.tryReceiveMultipart() == nil)
    }

    @Test("a service that cannot load its key refuses to start, saying why", arguments: ["missing", "readable by others", "not registered"])
    func serviceRefusesToStartWithoutItsKey(problem: String) throws {
        var platform = try Platform(security: .deployed)
        defer { platform.stop() }
        let keys = try #require(platform.keys)
        switch problem {
        case "missing": unlink(keys.keyPath("kitchen-display"))
        case "readable by others": chmod(keys.keyPath("kitchen-display"), 0o644)
        default: platform.extraArguments["kitchen-display"] = ["--instance", "kitchen-display-9"]
        }
        try platform.start("kitchen-display")
        let process = try #require(platform.process("kitchen-display"))
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        let log = platform.log("kitchen-display")
        #expect(log.contains("\"level\":\"error\""), "\(log)")
        #expect(log.contains("kitchen-display"), "\(log)")
    }
}
