import Campus
import Foundation
import Messages
@testable import NotifyServer
import Policy
import Testing
import TestSupport

/// device.register with channel webhook, by the caller its connection proved, and the secrets
/// file's rules.
@Suite(.serialized)
struct WebhookAccessTests {
    static func catalog() throws -> CampusCatalog {
        var catalog = try CampusCatalog.load(path: NotifyHarness.campusPath)
        catalog.webhooks = [WebhookEndpoint(id: "android-push", url: "https://push.example.com/v1/deliveries", secret: "android")]
        return catalog
    }

    func webhook(_ deviceId: String, endpoint: String = "android-push") -> RegisterDevice {
        RegisterDevice(deviceId: deviceId, userId: nil, channel: "webhook", language: "en", locale: "en_US", authorization: .authorized,
                       webhook: WebhookDestination(endpoint: endpoint, recipient: "fcm:\(deviceId)"))
    }

    @Test("a phone registers its own device to an allowed receiver; another device, another role or a receiver not on the list is refused and changes nothing")
    func register() throws {
        let h = try NotifyHarness()
        h.service.use(try Self.catalog())
        let ana = Callers.phone("phone-ana", user: "ana")
        _ = try h.call(Op.deviceRegister, webhook("phone-ana"), as: Registration.self, caller: ana)
        #expect(try h.service.store.registration("phone-ana")?.webhook == WebhookDestination(endpoint: "android-push", recipient: "fcm:phone-ana"))
        let before = try h.snapshot()
        #expect(errorCode { try h.call(Op.deviceRegister, webhook("phone-bo"), as: Registration.self, caller: ana) } == "auth.forbidden")
        #expect(errorCode { try h.call(Op.deviceRegister, webhook("phone-ana"), as: Registration.self, caller: Callers.operator) } == "auth.forbidden")
        #expect(errorCode { try h.call(Op.deviceRegister, webhook("phone-ana", endpoint: "chat"), as: Registration.self, caller: ana) } == "notify.unknownWebhook")
        #expect(try h.snapshot() == before)
        #expect(try h.service.store.registration("phone-ana")?.webhook?.endpoint == "android-push")
        // Registering another channel drops the receiver: nothing more is POSTed for the device.
        _ = try h.call(Op.deviceRegister, h.registration("phone-ana"), as: Registration.self, caller: ana)
        #expect(try h.service.store.registration("phone-ana")?.webhook == nil)
    }

    @Test("the secrets file: a JSON object of names to whsec_ secrets, bounded; a problem never shows a secret")
    func secretsFile() throws {
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        #expect(try WebhookSecrets.parse(Data(#"{"android":"\#(secret)"}"#.utf8)).keys.sorted() == ["android"])
        for bad in [#"["\#(secret)"]"#, #"{"Android":"\#(secret)"}"#, #"{"android":"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}"#, #"{"android":7}"#, "not json"] {
            #expect(throws: SecretsError.self) { try WebhookSecrets.parse(Data(bad.utf8)) }
            do { _ = try WebhookSecrets.parse(Data(bad.utf8)) } catch { #expect(!"\(error)".contains("MfKQ9r8G"), "\(error)") }
        }
        let many = "{" + (0...WebhookSecrets.maxSecrets).map { #""s\#($0)":"\#(secret)""# }.joined(separator: ",") + "}"
        #expect(throws: SecretsError.self) { try WebhookSecrets.parse(Data(many.utf8)) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webhook-secrets-\(UUID().uuidString.prefix(8)).json")
        defer { try? FileManager.default.removeItem(at: folder) }
        let secrets = WebhookSecrets(file: folder.path)
        #expect(secrets.signer(named: "android") == nil && secrets.problem(named: "android")?.contains("cannot read") == true)
        try Data(#"{"android":"\#(secret)"}"#.utf8).write(to: folder)
        #expect(secrets.reload() == 1 && secrets.signer(named: "android") != nil && secrets.problem(named: "chat") != nil)
        secrets.refused(named: "android", "signature refused (401)")
        #expect(secrets.signer(named: "android") == nil && secrets.problem(named: "android") == "signature refused (401)")
        secrets.reload()
        #expect(secrets.signer(named: "android") != nil, "a new read clears a refusal")
    }
}
