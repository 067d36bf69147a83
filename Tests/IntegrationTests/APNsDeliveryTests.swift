import Foundation
import Messages
import ServiceRuntime
import Testing

/// The apns channel through real processes: notification-service sends to the strict local APNs
/// peer (Tests/Peers/apns_peer.py) over HTTP/2 and TLS with a test CA, and each answer class
/// has the outcome the README documents.
@Suite("APNs delivery through the strict local peer", .serialized)
struct APNsDeliveryTests {
    @Test("orderReady: one well-formed, correctly signed push with collapse id, expiration, priority 10 and the localized text; one connection")
    func happyPath() throws {
        let rig = try APNsRig()
        defer { rig.stop() }
        let token = APNsPeer.token(1)
        try rig.register("phone-lena", token: token, language: "de", locale: "de_DE")
        try rig.ready("ord-apns-1", device: "phone-lena")
        try rig.await("push.delivered", "1")
        let seen = rig.peer.seen(token: token)
        let push = try #require(seen.first)
        #expect(seen.count == 1 && push.status == 200, "\(seen.map { "\($0.status) \($0.reason ?? "")" })")
        #expect(push.headers[":path"] == "/3/device/\(token)")
        #expect(push.headers["apns-push-type"] == "alert" && push.headers["apns-priority"] == "10" && push.headers["apns-topic"] == APNsPeer.topic)
        #expect(push.headers["apns-collapse-id"] == "ord-apns-1")
        #expect(push.headers["apns-expiration"] == "\(rig.now.adding(seconds: 2_400).milliseconds / 1_000)")
        #expect(push.kid == APNsPeer.keyID)
        let aps = try #require(push.payload?["aps"] as? [String: Any])
        let alert = try #require(aps["alert"] as? [String: String])
        #expect(alert["title"] == "Deine Bestellung ist fertig")
        #expect(alert["body"]?.hasPrefix("Deine Bestellung von Caffè Macs ist abholbereit.") == true)
        #expect(aps["thread-id"] as? String == "ord-apns-1")
        // apns-id is the notification's own id: lower case, the same as the inbox's.
        let inbox = try rig.notify.call(Op.inboxList, InboxQuery(deviceId: "phone-lena"), as: InboxReply.self).notifications
        #expect(inbox.map(\.notificationId) == ["ntf_" + (push.apnsId ?? "-")])
        let health = try rig.health()
        #expect(health["push.sent"] == "1" && health["push.connections"] == "1" && health["push.acceptP50Ms"] != "-")
    }

    @Test("410 Unregistered retires the token: later deliveries are notify.undeliverable token.unregistered; registering again sends again")
    func unregistered() throws {
        let rig = try APNsRig()
        defer { rig.stop() }
        let token = APNsPeer.token(2)
        try rig.peer.script(tokens: [token: ["410"]])
        try rig.register("phone-gone", token: token)
        try rig.ready("ord-gone-1", device: "phone-gone")
        try rig.await("push.retired", "1")
        try rig.ready("ord-gone-2", device: "phone-gone")
        try rig.await("notifications.undeliverable", "1")
        #expect(rig.peer.seen(token: token).map(\.status) == [410])
        try rig.register("phone-gone", token: token)
        try rig.ready("ord-gone-3", device: "phone-gone")
        try rig.await("push.delivered", "1")
        #expect(rig.peer.seen(token: token).map(\.status) == [410, 200])
    }

    @Test("500, 503, a stalled stream and a dropped connection are retried with the same apns-id and collapse id until APNs accepts")
    func transientRetried() throws {
        let rig = try APNsRig()
        defer { rig.stop() }
        let token = APNsPeer.token(3)
        try rig.peer.script(tokens: [token: ["500", "503", "stall", "drop"]])
        try rig.register("phone-retry", token: token)
        try rig.ready("ord-retry-1", device: "phone-retry")
        try rig.await("push.delivered", "1", timeout: 30)
        let seen = rig.peer.seen(token: token)
        #expect(seen.map(\.status) == [500, 503, 0, 0, 200], "\(seen.map { "\($0.status) \($0.reason ?? "")" })")
        // Each attempt its own stream; the dropped connection made the last one open a second.
        #expect(Set(seen.map(\.connection)).count == 2)
        #expect(Set(seen.compactMap(\.apnsId)).count == 1 && seen.allSatisfy { $0.headers["apns-collapse-id"] == "ord-retry-1" })
        #expect(try rig.health()["push.retried"] == "4")
    }

    @Test("413 is never retried; 429 backs that device off (its next push waits too) and no other")
    func tooLargeAndThrottled() throws {
        let rig = try APNsRig()
        defer { rig.stop() }
        let (big, busy, calm) = (APNsPeer.token(4), APNsPeer.token(5), APNsPeer.token(6))
        try rig.peer.script(tokens: [big: ["413"], busy: ["429"]])
        try rig.register("phone-big", token: big)
        try rig.register("phone-busy", token: busy)
        try rig.register("phone-calm", token: calm)
        try rig.ready("ord-big", device: "phone-big")
        try rig.ready("ord-busy-1", device: "phone-busy")
        try rig.await("push.failed", "1")
        // Both answers recorded (attempts count when their answer is written), the 429's backoff with them.
        try rig.await("push.sent", "2")
        try rig.ready("ord-busy-2", device: "phone-busy")
        try rig.ready("ord-calm", device: "phone-calm")
        try rig.await("push.delivered", "1")
        let health = try rig.health()
        #expect(health["push.pending"] == "2", "both of the throttled device's pushes wait")
        #expect(rig.peer.seen(token: big).map(\.status) == [413])
        #expect(rig.peer.seen(token: busy).map(\.status) == [429])
    }

    @Test("GOAWAY after each request: the next pushes go on a new connection and all are accepted")
    func goaway() throws {
        let rig = try APNsRig()
        defer { rig.stop() }
        try rig.peer.script(goawayAfter: 1)
        for index in 0..<4 {
            try rig.register("phone-g\(index)", token: APNsPeer.token(10 + index))
            try rig.ready("ord-g\(index)", device: "phone-g\(index)")
        }
        try rig.await("push.delivered", "4", timeout: 20)
        let accepted = rig.peer.seen().filter { $0.status == 200 }
        #expect(Set(accepted.compactMap(\.apnsId)).count == 4 && Set(rig.peer.seen().map(\.connection)).count >= 2)
    }

    @Test("403 holds pushes and turns health degraded (push.credentials) until SIGHUP re-reads a good key file")
    func credentials() throws {
        let rig = try APNsRig(wrongKey: true)
        defer { rig.stop() }
        let token = APNsPeer.token(7)
        try rig.register("phone-key", token: token)
        try rig.ready("ord-key-1", device: "phone-key")
        _ = try eventually("the key refused") { rig.peer.seen(token: token).first?.reason == "InvalidProviderToken" ? true : nil }
        let degraded = try eventually("health degraded") { () -> HealthStatus? in
            let status = try rig.status()
            return status.status == "degraded" ? status : nil
        }
        #expect(degraded.details["reasons"]?.contains("push.credentials") == true && degraded.details["push.pending"] == "1")
        try rig.ready("ord-key-2", device: "phone-key")
        // Held: nothing more goes to APNs while the key is refused.
        try rig.await("push.pending", "2")
        #expect(rig.peer.seen(token: token).count == 1)
        // The operator puts the right key in place and sends SIGHUP.
        try Data(contentsOf: URL(fileURLWithPath: rig.peer.keyFile)).write(to: URL(fileURLWithPath: rig.wrongKeyFile))
        kill(try #require(rig.platform.process("notification-service")).processIdentifier, SIGHUP)
        try rig.await("push.delivered", "2")
        #expect(try rig.status().status == "ok")
        #expect(rig.peer.seen(token: token).map(\.status) == [403, 200, 200])
    }
}
