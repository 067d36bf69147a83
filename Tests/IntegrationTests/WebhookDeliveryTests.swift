import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport

/// The webhook channel through real processes: notification-service POSTs to the strict local
/// receiver (Tests/Peers/webhook_peer.py) over TLS with a test CA, the peer checks every
/// Standard Webhooks signature, and each answer class has the outcome the README documents.
@Suite("Webhook delivery through the strict local peer", .serialized)
struct WebhookDeliveryTests {
    @Test("orderReady arrives once, signed, under the notification's id; a receiver the allow-list does not name is refused")
    func happyPath() throws {
        let rig = try WebhookRig()
        defer { rig.stop() }
        #expect(errorCode { try rig.register("phone-x", endpoint: "chat") } == "notify.unknownWebhook")
        try rig.register("phone-and", recipient: "fcm:token-1", language: "de", locale: "de_DE")
        try rig.ready("ord-hook-1", device: "phone-and")
        let health = try rig.await("webhook.delivered", "1")
        let seen = rig.peer.seen()
        let hook = try #require(seen.first)
        #expect(seen.count == 1 && hook.status == 200 && hook.verified && hook.path == "/hook")
        #expect(try rig.inbox("phone-and") == [hook.id ?? "-"], "webhook-id is the notification's id")
        #expect(hook.body?["kind"] as? String == "orderReady" && hook.body?["orderId"] as? String == "ord-hook-1")
        #expect(hook.body?["recipient"] as? String == "fcm:token-1" && hook.body?["title"] as? String == "Deine Bestellung ist fertig")
        #expect(health["webhook.sent"] == "1" && health["webhook.android-push.circuit"] == "closed" && health["webhook.android-push.secret"] == "ok")
        #expect(try rig.status().status == "ok")
    }

    @Test("410 retires the device's webhook: later deliveries are notify.undeliverable token.unregistered until it registers again")
    func gone() throws {
        let rig = try WebhookRig()
        defer { rig.stop() }
        try rig.peer.script(["410"])
        try rig.register("phone-gone")
        try rig.ready("ord-gone-1", device: "phone-gone")
        try rig.await("webhook.retired", "1")
        try rig.ready("ord-gone-2", device: "phone-gone")
        try rig.await("notifications.undeliverable", "1")
        try rig.register("phone-gone")
        try rig.ready("ord-gone-3", device: "phone-gone")
        try rig.await("webhook.delivered", "1")
        #expect(rig.peer.seen().map(\.status) == [410, 200])
    }

    @Test("500s open the breaker: nothing goes while open, one probe after the cool-down, its success closes it and lets the held ones go")
    func breaker() throws {
        let rig = try WebhookRig(extra: ["--webhook-breaker-failures", "2", "--webhook-breaker-cooldown-seconds", "1"])
        defer { rig.stop() }
        try rig.peer.script(["500", "500", "500"])
        for device in ["phone-b1", "phone-b2", "phone-b3"] { try rig.register(device) }
        try rig.ready("ord-b1", device: "phone-b1")
        try rig.await("webhook.android-push.circuit", "open")
        try rig.ready("ord-b2", device: "phone-b2")
        try rig.ready("ord-b3", device: "phone-b3")
        let health = try rig.await("webhook.delivered", "3", timeout: 20)
        let seen = rig.peer.seen()
        #expect(seen.map(\.status) == [500, 500, 500, 200, 200, 200], "\(seen.map(\.status))")
        // Held while open: the two failures, the failed probe and the good one are all the first delivery.
        let first = try rig.inbox("phone-b1")
        #expect(seen.prefix(4).allSatisfy { [$0.id] == first.map(Optional.some) } && seen.allSatisfy(\.verified))
        #expect(health["webhook.android-push.circuit"] == "closed" && health["webhook.android-push.opened"] == "2")
    }

    @Test("a 429's Retry-After is honoured; a redirect is never followed (the receiver's 302 is a failure)")
    func throttledAndRedirected() throws {
        let rig = try WebhookRig()
        defer { rig.stop() }
        try rig.peer.script(["429:1", "302"])
        try rig.register("phone-r")
        try rig.ready("ord-r-1", device: "phone-r")
        try rig.await("webhook.failed", "1")
        let seen = rig.peer.seen()
        #expect(seen.map(\.status) == [429, 302] && seen.allSatisfy { $0.path == "/hook" }, "nothing requested at /elsewhere")
        #expect(seen.count == 2 && seen[1].time - seen[0].time >= 1, "sent again only after Retry-After")
    }

    @Test("without its secret a receiver's deliveries are held and health is degraded until SIGHUP reads one")
    func missingSecret() throws {
        let rig = try WebhookRig()
        defer { rig.stop() }
        let service = try #require(rig.platform.process("notification-service")).processIdentifier
        // The operator rotates the file and leaves the receiver's secret out.
        try rig.peer.writeSecrets(["someone-else": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"])
        kill(service, SIGHUP)
        let status = try eventually("health degraded") { () -> HealthStatus? in
            let status = try rig.status()
            return status.status == "degraded" ? status : nil
        }
        #expect(status.details["reasons"]?.contains("webhook.android-push.secret") == true)
        try rig.register("phone-s")
        try rig.ready("ord-s-1", device: "phone-s")
        try rig.await("webhook.pending", "1")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(rig.peer.seen().isEmpty, "nothing sent unsigned or wrongly signed")
        try rig.peer.writeSecrets([WebhookPeer.secretName: rig.peer.secret])
        kill(service, SIGHUP)
        try rig.await("webhook.delivered", "1")
        #expect(try rig.status().status == "ok" && rig.peer.seen().map(\.verified) == [true])
    }

    @Test("kill -9 while a delivery is in flight: sent again after the restart, under the same webhook-id")
    func killInFlight() throws {
        let rig = try WebhookRig(extra: ["--webhook-timeout-seconds", "60"])
        defer { rig.stop() }
        try rig.peer.script(["stall"])
        try rig.register("phone-k")
        try rig.ready("ord-k-1", device: "phone-k")
        _ = try eventually("the delivery in flight") { rig.peer.seen().count == 1 ? true : nil }
        rig.platform.kill9("notification-service")
        try rig.platform.start("notification-service")
        rig.notify.reset()
        try rig.await("webhook.delivered", "1")
        let seen = rig.peer.seen()
        #expect(seen.map(\.status) == [0, 200] && Set(seen.map(\.id)).count == 1 && seen.allSatisfy(\.verified))
    }
}
