import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// cafectl against the platform in deployed mode: `--keys DIR --as NAME` makes it that principal
/// over CURVE on every command, the platform holds it to the role, a refusal is printed as
/// `auth.forbidden` with exit 1, and a revoked key stops working without a restart.
@Suite(.serialized)
struct CafectlDeployedTests {
    @Test("cafectl acts as the principal it is given: each command works for a role that may, and is refused for one that may not")
    func actsAsThePrincipal() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        let keys = try #require(platform.keys)
        try keys.add(name: "phone-alice", role: .phone, deviceId: "D-alice", userId: "alice")
        try keys.add(name: "kitchen-macs", role: .kitchen, cafeId: "caffe-macs")
        try keys.add(name: "gateway-1", role: .gateway)
        try platform.startAll()

        // health: the operator, over CURVE, sees all six; a phone is refused; a client without keys gets no session.
        let health = try platform.cafectl(["health", "--json"])
        #expect(health.status == 0, "\(health.out) \(health.err)")
        #expect(health.out.split(separator: "\n").count == 6 && health.out.split(separator: "\n").allSatisfy { $0.contains("\"status\":\"ok\"") }, "\(health.out)")
        let phoneHealth = try platform.cafectl(["health", "order-service", "--json"], as: "phone-alice")
        #expect(phoneHealth.status == 1)
        #expect(phoneHealth.out.contains("\"status\":\"refused\"") && phoneHealth.out.contains("auth.forbidden"), "\(phoneHealth.out)")
        let plain = try runCommand(platform.bin.appendingPathComponent("cafectl"), ["health", "bus", "--json", "--bus", platform.endpoint("bus"), "--timeout-ms", "300"],
                                   environment: environmentWithoutCafeVariables())
        #expect(plain.status == 1 && plain.out.contains("\"status\":\"unreachable\""), "\(plain.out)")

        // Each pair: a principal that may, and one that must be refused, for the same command.
        let commands: [(arguments: [String], allowed: String, refused: String)] = [
            (["phone", "status", "--authorization", "whenInUse"], "phone-alice", "operator"),
            (["phone", "status", "--device", "D-gw", "--authorization", "always"], "gateway-1", "kitchen-macs"),
            (["prefs", "set", "closestToMe"], "phone-alice", "operator"),
            (["prefs", "get"], "phone-alice", "kitchen-macs"),
            (["windows", "--cafe", "caffe-macs"], "operator", "kitchen-macs"),
            (["kds", "tickets", "--cafe", "caffe-macs"], "kitchen-macs", "phone-alice"),
            (["monitor", "list"], "operator", "phone-alice"),
            (["notify", "register", "--authorization", "authorized"], "phone-alice", "operator"),
            (["inbox"], "phone-alice", "gateway-1"),
        ]
        for command in commands {
            let allowed = try platform.cafectl(command.arguments + flags(for: command.arguments, as: command.allowed, in: keys), as: command.allowed)
            #expect(allowed.status == 0, "\(command.arguments) as \(command.allowed): \(allowed.err)")
            let refused = try platform.cafectl(command.arguments + flags(for: command.arguments, as: command.refused, in: keys), as: command.refused)
            #expect(refused.status == 1, "\(command.arguments) as \(command.refused) exited \(refused.status): \(refused.out)")
            #expect(refused.err.hasPrefix("cafectl: auth.forbidden: \(command.refused) (") && refused.err.split(separator: "\n").count == 1,
                    "\(command.arguments) as \(command.refused): \(refused.err)")
        }
        // The phone's preference was set once, by the phone, for its own user (left out, taken from the key).
        let preference = try platform.cafectl(["prefs", "get"], as: "phone-alice")
        #expect(preference.out.contains("\"userId\":\"alice\"") && preference.out.contains("closestToMe"), "\(preference.out)")

        // A raw request is refused the same way, and the reply says so.
        let raw = try platform.cafectl(["request", "orders", Op.health], as: "kitchen-macs")
        #expect(raw.status == 1 && raw.out.contains("auth.forbidden"), "\(raw.out)")
        // The refusals were counted where they happened.
        let context = try Context()
        let orders = try platform.client("order-service", as: "operator", context: context)
        defer { orders.close() }
        #expect(Int(try orders.call(Op.health, Empty(), as: HealthStatus.self).details["auth.refused"] ?? "0") ?? 0 >= 3)
    }

    /// The phone's own device and user need no flags; other principals name the device where the command needs one.
    func flags(for arguments: [String], as principal: String, in keys: KeyFolder) -> [String] {
        guard (try? keys.registry().principal(named: principal))??.role != .phone else { return [] }
        switch arguments.first {
        case "phone" where !arguments.contains("--device"), "notify", "inbox": return ["--device", "D-alice"]
        case "prefs": return ["--user", "alice"]
        default: return []
        }
    }

    @Test("a key added while the platform runs works, and once revoked is refused, without a restart")
    func addAndRevokeWhileRunning() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        let keys = try #require(platform.keys)
        try platform.startAll()

        let cafectl = platform.bin.appendingPathComponent("cafectl")
        let added = try runCommand(cafectl, ["keys", "add", keys.path, "phone-bob", "--role", "phone", "--device", "D-bob", "--user", "bob"])
        #expect(added.status == 0, "\(added.err)")
        // What a phone holds: its own key and the registry as it was when the key was made.
        let phoneFolder = KeyFolder(platform.root.appendingPathComponent("phone-bob-keys").path)
        try FileManager.default.copyItem(atPath: keys.path, toPath: phoneFolder.path)
        func asBob(_ arguments: [String]) throws -> CommandResult {
            try runCommand(cafectl, arguments + platform.endpointFlags + ["--keys", phoneFolder.path, "--as", "phone-bob", "--timeout-ms", "1000"])
        }
        var last = ""
        let accepted = try? eventually("every service accepts phone-bob") { () -> Bool? in
            let status = try asBob(["phone", "status", "--authorization", "whenInUse"])
            let preference = try asBob(["prefs", "get"])
            last = status.err + preference.err
            return status.status == 0 && preference.status == 0 ? true : nil
        }
        try #require(accepted == true, "\(last)")
        // Meanwhile a service key is refused what only a phone may do.
        #expect(try platform.cafectl(["prefs", "get", "--user", "bob"], as: "kitchen-display").status == 1)

        let revoked = try runCommand(cafectl, ["keys", "revoke", keys.path, "phone-bob"])
        #expect(revoked.status == 0, "\(revoked.err)")
        // Each service reloads the registry for its requests and for its ZAP handler apart: in
        // between, a connection may still get a session and its request be refused by name.
        var meanwhile: [String] = []
        let refused = try eventually("phone-bob refused at the connection after revocation") { () -> CommandResult? in
            let result = try asBob(["prefs", "get"])
            guard result.status != 0 else { return nil }
            if result.err.contains("client.timeout") { return result }
            meanwhile.append(result.err)
            return nil
        }
        for err in meanwhile {
            #expect(err.contains("auth.forbidden") && err.contains("phone-bob") && err.contains("no longer in the campus key registry"), "\(err)")
        }
        // A new connection with a revoked key gets no session: silence, explained.
        #expect(refused.status == 1)
        #expect(refused.err.contains("client.timeout") && refused.err.contains("deployed mode") && refused.err.contains("phone-bob"), "\(refused.err)")
        #expect(try platform.cafectl(["health", "notification-service"]).status == 0, "the operator still works")
    }

    @Test("cafectl tail as a phone prints only that phone's deliveries; a phone asking for everything gets nothing")
    func phoneTail() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        let keys = try #require(platform.keys)
        try keys.add(name: "phone-alice", role: .phone, deviceId: "D-alice", userId: "alice")
        try platform.start(busAnd: [])

        let tail = try TailProcess(platform, ["--count", "2", "--keys", keys.path, "--as", "phone-alice"])
        // Asking for everything gets nothing: the bus drops a phone's subscription to anything but its own deliveries.
        let greedy = try TailProcess(platform, ["", "--keys", keys.path, "--as", "phone-alice"])
        defer { tail.stop(); greedy.stop() }
        let context = try Context()
        let publisher = try platform.busPublisher(context, as: "notification-service")
        defer { publisher.close() }
        var seq: UInt64 = 0
        func deliver(to device: String) throws {
            seq += 1
            let note = DeviceNotification(notificationId: "ntf-\(seq)", deviceId: device, kind: .orderReady, collapseId: "ord-\(seq)", title: "Your order is ready",
                                          body: "Pick it up", language: "en", orderId: "ord-\(seq)", expiresAt: nil, createdAt: Timestamp(Date()), undeliverableReason: nil)
            let envelope = Envelope(type: .notifyDelivery, source: "notification-service", stream: "notify", seq: seq, time: Timestamp(Date()), body: .notification(note))
            try publisher.send(multipart: [Data(Topic.notifyDelivery(device: device).utf8), Wire.encode(envelope)])
        }
        // Bob's delivery, then Alice's, until Alice's tail has printed two messages and stopped.
        _ = try eventually("two deliveries on alice's tail") { () -> Bool? in
            try deliver(to: "D-bob")
            try deliver(to: "D-alice")
            usleep(100_000)
            return tail.process.isRunning ? nil : true
        }
        #expect(tail.process.terminationStatus == 0)
        let lines = tail.lines()
        #expect(lines.count == 2 && lines.allSatisfy { $0.topic.hasPrefix("notify.delivery.D-alice.") }, "\(lines.map(\.topic))")
        #expect(greedy.interrupt() == 0)
        #expect(greedy.lines().isEmpty, "\(greedy.lines().map(\.topic))")
        #expect(greedy.summary.contains("phone-alice is a phone"), "\(greedy.summary)")
    }
}

extension Platform {
    /// cafectl's flags for every endpoint of this platform.
    var endpointFlags: [String] {
        ["--bus", endpoint("bus"), "--ingest", endpoint("beacon-ingest"), "--region", endpoint("region-monitor"), "--orders", endpoint("order-service"),
         "--kitchen", endpoint("kitchen-display"), "--notify", endpoint("notification-service"), "--bus-pub", busPub, "--bus-sub", busSub]
    }
}
