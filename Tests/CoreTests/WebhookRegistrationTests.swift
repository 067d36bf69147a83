import Campus
import Foundation
import Messages
import NotifyCore
import Testing

/// `device.register` with channel webhook: a receiver the catalog allows, by id, and nothing else.
@Suite("Webhooks: device.register's destination")
struct WebhookRegistrationTests {
    static func catalog() throws -> CampusCatalog {
        var catalog = try DemoCampus.load()
        catalog.webhooks = [WebhookEndpoint(id: "android-push", url: "https://push.example.com/v1/deliveries", secret: "android")]
        return catalog
    }

    func request(_ channel: String, _ webhook: WebhookDestination?) -> RegisterDevice {
        RegisterDevice(deviceId: "p", userId: nil, channel: channel, language: "en", locale: "en_US", authorization: .authorized, webhook: webhook)
    }

    func check(_ request: RegisterDevice, catalog: CampusCatalog?) -> String? {
        do {
            try NotifyRequestRules.checkRegistration(request, catalog: catalog)
            return nil
        } catch { return error.code }
    }

    @Test("an allowed receiver registers; an unknown one is notify.unknownWebhook; a destination with another channel, or none, request.invalidField")
    func rules() throws {
        let catalog = try Self.catalog()
        let allowed = WebhookDestination(endpoint: "android-push", recipient: "fcm:abc")
        #expect(check(request("webhook", allowed), catalog: catalog) == nil)
        #expect(check(request("webhook", WebhookDestination(endpoint: "chat")), catalog: catalog) == "notify.unknownWebhook")
        #expect(check(request("webhook", allowed), catalog: nil) == "notify.unknownWebhook", "no catalog, no receiver")
        #expect(check(request("webhook", allowed), catalog: try DemoCampus.load()) == "notify.unknownWebhook", "the demo catalog allows none")
        #expect(check(request("webhook", nil), catalog: catalog) == "request.invalidField")
        #expect(check(request("bus", allowed), catalog: catalog) == "request.invalidField")
        var both = request("apns", allowed)
        both.apns = APNsDestination(token: String(repeating: "0", count: 64), environment: .sandbox, topic: "edu.campus.cafe")
        #expect(check(both, catalog: catalog) == "request.invalidField")
        var withActivity = request("webhook", allowed)
        withActivity.liveActivity = LiveActivityToken(orderId: "ord-1", token: String(repeating: "a", count: 32))
        #expect(check(withActivity, catalog: catalog) == "request.invalidField")
        let registration = try NotifyRequestRules.registration(request("webhook", allowed), now: t0)
        #expect(registration.webhook == allowed && registration.apns == nil)
    }

    @Test("the destination is bounded where it is decoded: an endpoint id of a-z, 0-9 and -, a recipient of 1–512 visible ASCII bytes")
    func decoding() throws {
        func decode(_ webhook: String) throws(WireError) -> RegisterDevice {
            let frame = #"{"op":"device.register","id":"1","body":{"deviceId":"p","channel":"webhook","language":"en","locale":"en_US","authorization":"authorized","webhook":\#(webhook)}}"#
            return try Wire.decodeRequest(Data(frame.utf8), body: RegisterDevice.self).body
        }
        #expect(try decode(#"{"endpoint":"android-push"}"#).webhook == WebhookDestination(endpoint: "android-push"))
        #expect(try decode(#"{"endpoint":"chat","recipient":"@lena:campus"}"#).webhook?.recipient == "@lena:campus")
        for bad in [#"{"endpoint":"Android"}"#, #"{"endpoint":""}"#, #"{"endpoint":"\#(String(repeating: "a", count: 41))"}"#,
                    #"{"endpoint":"https://evil.example/"}"#, #"{"endpoint":"chat","recipient":""}"#, #"{"endpoint":"chat","recipient":"a b"}"#,
                    #"{"endpoint":"chat","recipient":"\#(String(repeating: "x", count: 513))"}"#, #"{"recipient":"x"}"#] {
            do {
                _ = try decode(bad)
                Issue.record("decoded \(bad)")
            } catch { #expect(error.code == .invalidField, "\(bad)") }
        }
    }
}
