import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// Revocation without a restart (issue 13): a key removed from the registry (SIGHUP, or the file
/// changing) loses its open connections to the bus, and its reconnection is refused.
@Suite(.serialized)
struct BusRevocationTests {
    @Test("a revoked key: its publications stop being forwarded and its subscription session is cut")
    func revokedKeys() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        try platform.keys!.add(name: "phone-1", role: .phone, deviceId: "dev-1", userId: "ann")
        try platform.start(busAnd: [])
        let context = try Context()
        let phone = try BusSubscriber(platform, context, as: "phone-1", prefixes: ["notify.delivery.dev-1."])
        let watcher = try BusSubscriber(platform, context, as: "operator", prefixes: ["sighting.", "notify."])
        let notifications = try platform.busPublisher(context, as: "notification-service")
        // A spare service instance key `keys init` made, playing a publisher that is then revoked.
        let doomed = try platform.busPublisher(context, as: "beacon-ingest-s1")
        let control = try platform.busPublisher(context, as: "beacon-ingest")
        defer { [phone, watcher].forEach { $0.close() }; [notifications, doomed, control].forEach { $0.close() } }

        func sighting(_ source: String, _ id: String) -> [Data] {
            let now = Timestamp(Date())
            let body = Sighting(deviceId: "dev-9", beacon: BeaconIdentity(uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", major: 1, minor: 2), rssi: -63,
                                measuredPower: -59, accuracy: 1.6, proximity: .near, observedAt: now)
            return Platform.frames("sighting.s1.", Envelope(type: .sightingReported, id: id, source: source, stream: "sighting", seq: 1, time: now, body: .sighting(body)))
        }
        func delivery(_ id: String) -> [Data] {
            var envelope = BusSecurityTests.delivery(to: "dev-1", seq: 1)
            envelope.id = id
            return Platform.frames(Topic.notifyDelivery(device: "dev-1"), envelope)
        }
        try platform.publish([(notifications, delivery("before")), (doomed, sighting("beacon-ingest-s1", "doomed-before"))],
                             pumping: [phone, watcher]) {
            !phone.on("notify.").isEmpty && watcher.on("sighting.").contains { $0.id == "doomed-before" }
        }

        try platform.keys!.revoke(name: "phone-1")
        try platform.keys!.revoke(name: "beacon-ingest-s1")
        platform.hangUp("bus")
        _ = try eventually("the bus cut the revoked keys' sessions") { try platform.healthDetails("bus", context)["sessions.cut"] == "1" ? true : nil }

        // The control publisher and the operator reconnect and carry on; the revoked ones do not.
        try platform.publish([(notifications, delivery("after")), (doomed, sighting("beacon-ingest-s1", "doomed-after")),
                              (control, sighting("beacon-ingest", "control-after"))],
                             pumping: [phone, watcher], timeout: 15) {
            watcher.on("sighting.").contains { $0.id == "control-after" } && watcher.on("notify.").contains { $0.id == "after" }
        }
        for _ in 0..<5 {
            try doomed.send(multipart: sighting("beacon-ingest-s1", "doomed-after"), dontWait: true)
            try notifications.send(multipart: delivery("after"), dontWait: true)
            try phone.pump(milliseconds: 100)
            try watcher.pump(milliseconds: 0)
        }
        #expect(!phone.on("notify.").contains { $0.id == "after" }, "the revoked phone's subscription was cut and its reconnection refused")
        #expect(!watcher.on("sighting.").contains { $0.id == "doomed-after" }, "the revoked publisher's messages are not forwarded")
        let health = try platform.healthDetails("bus", context)
        #expect(Int(health["zap.refused"] ?? "") ?? 0 >= 2, "both revoked keys tried to handshake again and were refused: \(health)")
        #expect(health["subscribers.cut.revoked"] == "1" && health["subscribers.cut.unpaired"] == nil, "\(health)")
    }
}
