import Foundation
import Messages
import NotifyCore
@testable import NotifyServer
import SQLite
import ServiceRuntime
import Testing

/// The apns channel's bookkeeping in-process, on a real SQLite file with the clock in the test's
/// hand and no key configured (nothing reaches the network): a push starts in the transaction of
/// its notification, waits for a key, and the checks made at every attempt end it.
@Suite("notification-service: APNs pushes in the store")
struct NotifyPushTests {
    static let token = String(repeating: "ab", count: 32)

    func register(_ h: NotifyHarness, _ device: String, _ authorization: NotificationAuthorization) throws {
        _ = try h.service.register(RegisterDevice(deviceId: device, userId: nil, channel: "apns", language: "en", locale: "en_US", authorization: authorization,
                                                  apns: APNsDestination(token: Self.token, environment: .sandbox, topic: "edu.campus.cafe")))
    }

    func state(_ h: NotifyHarness, _ device: String) throws -> (state: String?, reason: String?) {
        let row = try #require(try h.host.db.query("SELECT push_state, push_reason FROM notifications WHERE device_id = ?", device).first)
        return (row.optionalString("push_state"), row.optionalString("push_reason"))
    }

    @Test("an App Clip's push waits without a key, then its 8-hour grant ends it: expired, never sent; health says push.credentials meanwhile")
    func ephemeralGrantGates() throws {
        let h = try NotifyHarness()
        try register(h, "clip-1", .ephemeral)
        try h.apply(.orderReady, h.order("ord-clip", .ready, device: "clip-1", startsIn: 9 * 3600))
        #expect(try state(h, "clip-1") == ("pending", nil))
        try #require(h.service.pushes).tick()
        #expect(h.service.pushes?.held == true && h.service.pushes?.healthDetails()["push.credentials"] == "no --apns-key-file")
        h.clock.advance(seconds: 8 * 3600 + 1)
        h.service.pushes?.wake()
        try #require(h.service.pushes).tick()
        #expect(try state(h, "clip-1") == ("expired", UndeliverableReason.ephemeralExpired))
        #expect(h.service.pushes?.held == false && h.service.pushes?.healthDetails()["push.expired"] == "1")
    }

    @Test("a bus device gets no push; an apns device whose notification is refused gets none either")
    func onlyDeliverableApnsPushes() throws {
        let h = try NotifyHarness()
        try h.register("bus-1")
        try register(h, "denied-1", .denied)
        try h.apply(.orderReady, h.order("ord-bus", .ready, device: "bus-1"))
        try h.apply(.orderReady, h.order("ord-denied", .ready, device: "denied-1"))
        #expect(try state(h, "bus-1").state == nil && state(h, "denied-1").state == nil)
    }

    @Test("a retired token: the next notification is undeliverable token.unregistered; registering again clears it")
    func retiredToken() throws {
        let h = try NotifyHarness()
        try register(h, "phone-r", .authorized)
        try h.host.events.write { try h.service.store.retireToken(deviceId: "phone-r", since: h.clock.now()) }
        try h.apply(.orderReady, h.order("ord-r1", .ready, device: "phone-r"))
        let reason = try h.host.db.query("SELECT reason FROM notifications WHERE device_id = 'phone-r'").first?.optionalString("reason")
        #expect(reason == UndeliverableReason.tokenUnregistered)
        h.clock.advance(seconds: 1)
        try register(h, "phone-r", .authorized)
        #expect(try h.service.store.registration("phone-r")?.apnsRetiredAt == nil)
    }
}
