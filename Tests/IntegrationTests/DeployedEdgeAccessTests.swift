import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// The edge services in deployed mode, as real processes over CURVE: region-monitor takes fixes
/// from beacon-ingest alone, and a phone's key reaches only its own device's inbox, location and
/// status, whatever the body says.
@Suite(.serialized)
struct DeployedEdgeAccessTests {
    /// Roppongi Café and Caffè Macs, from deploy/campus.json.
    static let tokyo = (latitude: 35.6595, longitude: 139.7005)
    static let macs = (latitude: 37.3349, longitude: -122.009)

    /// A `location.fix` placing `deviceId` at Caffè Macs now, its envelope claiming beacon-ingest.
    static func forgedFix(_ deviceId: String) -> [Data] {
        let now = Timestamp(Date())
        let fix = LocationFix(deviceId: deviceId, latitude: macs.latitude, longitude: macs.longitude, horizontalAccuracy: 5, precise: true, observedAt: now)
        let envelope = Envelope(type: .locationFix, source: "beacon-ingest", stream: "location", seq: 1, time: now, body: .locationFix(fix))
        return [Data("location.s0.".utf8), Wire.encode(envelope)]
    }

    /// A PUSH to region-monitor's fix port, secured by `secure` (nil: plain); the caller closes it.
    static func pusher(_ context: Context, to endpoint: String, secure: ((Socket) throws -> Void)?) throws -> Socket {
        let push = try Socket(context, .push)
        try push.setLinger(milliseconds: 0)
        try secure?(push)
        try push.connect(endpoint)
        return push
    }

    @Test("a forged location.fix pushed to region-monitor's fix port by any key but beacon-ingest's is not applied; a plain or unknown key gets no session")
    func forgedFixesAreNotApplied() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        let keys = try requireValue(platform.keys)
        try keys.add(name: "phone-kenji", role: .phone, deviceId: "kenji-phone", userId: "kenji")
        // beacon-ingest names its server in the endpoint, as compose does for shards.
        platform.extraArguments["beacon-ingest"] = ["--fix-endpoints", "region-monitor@" + platform.endpoint("region-fixes")]
        try platform.start(busAnd: ["beacon-ingest", "region-monitor"])
        let context = try Context()
        let ingest = try platform.client("beacon-ingest", as: "phone-kenji", context: context)
        let region = try platform.client("region-monitor", as: "order-service", context: context)
        let admin = try platform.client("region-monitor", as: KeyFolder.defaultOperator, context: context)
        defer { ingest.close(); region.close(); admin.close() }
        func confirm(_ cafe: String) throws -> LocationConfirmation.Result {
            try region.call(Op.locationConfirm, ConfirmLocation(deviceId: "kenji-phone", code: "https://clip.campus.example/\(cafe)/counter",
                                                               acquiredAt: Timestamp(Date()), cafeId: cafe), as: LocationConfirmation.self).result
        }
        func health() throws -> [String: String] { try admin.call(Op.health, Empty(), as: HealthStatus.self).details }

        // Kenji's phone, in Tokyo, reports through beacon-ingest: its fix reaches region-monitor over CURVE.
        _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: "kenji-phone", status: DeviceStatusReport(authorization: .always, foreground: true)), as: IngestResult.self)
        let fix = FixReport(latitude: Self.tokyo.latitude, longitude: Self.tokyo.longitude, horizontalAccuracy: 10, precise: true, timestamp: Timestamp(Date()))
        #expect(try ingest.call(Op.ingestReport, IngestReport(deviceId: "kenji-phone", fixes: [fix]), as: IngestResult.self).accepted == 1)
        #expect(try eventually("kenji's fix reaches region-monitor") { try confirm("tokyo-cafe") == .yes ? true : nil })
        #expect(try confirm("caffe-macs") == .no)

        // Fixes placing him at Caffè Macs: with no CURVE, with a key the registry does not hold,
        // then with two registered keys that are not beacon-ingest's (his own phone's, order-service's).
        let fixes = platform.endpoint("region-fixes")
        let serverKey = try requireValue(keys.registry().principal(named: "region-monitor")).publicKey
        let stranger = try CurveKeyPair.generate()
        let plain = try Self.pusher(context, to: fixes, secure: nil)
        let unknown = try Self.pusher(context, to: fixes) { try $0.setCurveClient(serverKey: serverKey, publicKey: stranger.publicKey, secretKey: stranger.secretKey) }
        let phone = try Self.pusher(context, to: fixes) { try platform.security(as: "phone-kenji").secureClient($0, server: "region-monitor") }
        let service = try Self.pusher(context, to: fixes) { try platform.security(as: "order-service").secureClient($0, server: "region-monitor") }
        defer { [plain, unknown, phone, service].forEach { $0.close() } }
        // The two that never get a session may refuse to queue at all; the registered ones wait
        // (at most 5 s) for their handshake, however loaded the machine.
        for push in [plain, unknown] { try? push.send(multipart: Self.forgedFix("kenji-phone"), dontWait: true) }
        for push in [phone, service] {
            try push.setSendTimeout(milliseconds: 5_000)
            try push.send(multipart: Self.forgedFix("kenji-phone"))
        }

        // The registered keys got sessions and their fixes arrived, refused; the others never arrived.
        let refused = try eventually("both registered senders refused") { try health()["fixes.forbidden"] == "2" ? true : nil }
        #expect(refused)
        #expect(try eventually("the unknown key refused by ZAP") { (Int(try health()["zap.refused"] ?? "") ?? 0) >= 1 ? true : nil })
        // Not a wait for something to happen: a quiet half second proving nothing more arrives
        // (a plain PUSH never gets a session, so there is nothing of it to wait for).
        usleep(500_000)
        let after = try health()
        #expect(after["fixes.forbidden"] == "2", "a plain PUSH gets no session: nothing of it arrives")
        #expect(after["fixes.consumed"] == "1", "only beacon-ingest's fix was applied")
        #expect(try confirm("caffe-macs") == .no, "kenji is still in Tokyo as far as region-monitor knows")
        #expect(try confirm("tokyo-cafe") == .yes)
        let log = platform.log("region-monitor")
        #expect(log.contains("dead letter") && log.contains("auth.forbidden") && log.contains("phone-kenji") && log.contains("only beacon-ingest"))
    }

    @Test("a phone's key is refused another device's inbox, location, registration and status over real sockets")
    func phoneKeyReachesOnlyItsDevice() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        let keys = try requireValue(platform.keys)
        try keys.add(name: "phone-ana", role: .phone, deviceId: "ana-phone", userId: "ana")
        try keys.add(name: "phone-bo", role: .phone, deviceId: "bo-phone", userId: "bo")
        try platform.start(busAnd: ["beacon-ingest", "region-monitor", "notification-service"])
        let context = try Context()
        var clients: [RequestClient] = []
        defer { clients.forEach { $0.close() } }
        func client(_ service: String, as principal: String) throws -> RequestClient {
            clients.append(try platform.client(service, as: principal, context: context))
            return clients[clients.count - 1]
        }
        let (anaNotify, boNotify, opNotify) = (try client("notification-service", as: "phone-ana"), try client("notification-service", as: "phone-bo"),
                                               try client("notification-service", as: KeyFolder.defaultOperator))
        let (anaRegion, boRegion) = (try client("region-monitor", as: "phone-ana"), try client("region-monitor", as: "phone-bo"))
        let (anaIngest, boIngest) = (try client("beacon-ingest", as: "phone-ana"), try client("beacon-ingest", as: "phone-bo"))
        let register = { (device: String, user: String?) in
            RegisterDevice(deviceId: device, userId: user, channel: "bus", language: "en", locale: "en_US", authorization: .authorized)
        }

        // Ana's phone: registered as ana (from its key), its inbox, where it is, its status.
        _ = try anaNotify.call(Op.deviceRegister, register("ana-phone", nil), as: Registration.self)
        #expect(try anaNotify.call(Op.inboxList, InboxQuery(deviceId: "ana-phone"), as: InboxReply.self).notifications.isEmpty)
        _ = try anaIngest.call(Op.ingestReport, IngestReport(deviceId: "ana-phone", status: DeviceStatusReport(authorization: .always, foreground: true)), as: IngestResult.self)
        #expect(try anaRegion.call(Op.nearestGet, DeviceQuery(deviceId: "ana-phone"), as: NearestAnswer.self).deviceId == "ana-phone")

        // Bo's phone asks for all of it about Ana's device, and registers itself under ana.
        let refusals: [(String, () throws -> Void)] = [
            ("inbox", { _ = try boNotify.call(Op.inboxList, InboxQuery(deviceId: "ana-phone"), as: InboxReply.self) }),
            ("nearest", { _ = try boRegion.call(Op.nearestGet, DeviceQuery(deviceId: "ana-phone"), as: NearestAnswer.self) }),
            ("confirm", { _ = try boRegion.call(Op.locationConfirm, ConfirmLocation(deviceId: "ana-phone", code: "https://clip.campus.example/caffe-macs/counter",
                                                                                     acquiredAt: Timestamp(Date()), cafeId: "caffe-macs"), as: LocationConfirmation.self) }),
            ("record", { _ = try boRegion.call(Op.monitorRecord, RecordQuery(monitor: "campus", identifier: "caffe-macs", deviceId: "ana-phone"), as: MonitorRecord.self) }),
            ("register as ana", { _ = try boNotify.call(Op.deviceRegister, register("bo-phone", "ana"), as: Registration.self) }),
            ("withdraw ana's authorization", { _ = try boIngest.call(Op.ingestReport, IngestReport(deviceId: "ana-phone", status: DeviceStatusReport(authorization: .denied, foreground: true)),
                                                                     as: IngestResult.self) }),
        ]
        for (what, request) in refusals {
            #expect(errorCode(request) == "auth.forbidden", "\(what)")
        }
        // Nothing changed: ana's authorization stands (her next fix is taken), bo-phone never registered.
        let fix = FixReport(latitude: Self.macs.latitude, longitude: Self.macs.longitude, horizontalAccuracy: 10, precise: true, timestamp: Timestamp(Date()))
        #expect(try anaIngest.call(Op.ingestReport, IngestReport(deviceId: "ana-phone", fixes: [fix]), as: IngestResult.self).accepted == 1)
        #expect(errorCode { try opNotify.call(Op.inboxList, InboxQuery(deviceId: "bo-phone"), as: InboxReply.self) } == "notify.unknownDevice")
        #expect(try opNotify.call(Op.inboxList, InboxQuery(deviceId: "ana-phone"), as: InboxReply.self).deviceId == "ana-phone", "the operator reads any inbox")
        let notifyHealth = try opNotify.call(Op.health, Empty(), as: HealthStatus.self).details
        #expect(notifyHealth["auth.refused"] == "2")
    }

    @Test("plain mode has no identities to stop a forged fix with: region-monitor binds its fix port only on loopback")
    func plainFixPortStaysOnLoopback() throws {
        let ports = try LoopbackPorts.free(2)
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("edge-plain-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: data) }
        let campus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/campus.json").path
        let result = try runCommand(try Platform.binaryDirectory().appendingPathComponent("region-monitor"),
                                    ["--listen", "tcp://127.0.0.1:\(ports[0])", "--fix-listen", "tcp://0.0.0.0:\(ports[1])", "--campus", campus,
                                     "--data-dir", data.path], environment: environmentWithoutCafeVariables())
        #expect(result.status == 1)
        #expect(result.err.contains("plain mode binds only loopback") && result.err.contains("0.0.0.0:\(ports[1])"), "\(result.err)")
    }
}
