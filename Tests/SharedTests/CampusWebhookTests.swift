import Campus
import Foundation
import Testing

/// The catalog's webhook allow-list: the only addresses notification-service may POST to.
@Suite("Campus catalog webhooks")
struct CampusWebhookTests {
    static func catalog(webhooks: Any) throws -> Data {
        var object = try CampusCatalogTests.validObject()
        object["webhooks"] = webhooks
        return try jsonData(object)
    }

    static var good: [String: Any] { ["id": "android-push", "url": "https://push.example.com/v1/deliveries", "secret": "android-push"] }

    @Test("an allow-list loads and is found by id; none is an empty list")
    func loads() throws {
        let catalog = try CampusCatalog.decode(try Self.catalog(webhooks: [Self.good]))
        #expect(catalog.webhook("android-push")?.url == "https://push.example.com/v1/deliveries")
        #expect(catalog.webhook("chat") == nil)
        #expect(try CampusCatalog.decode(try jsonData(try CampusCatalogTests.validObject())).webhook("android-push") == nil)
    }

    @Test("each bad entry is refused naming its field", arguments: [
        ("id", "Not An Id", "webhooks[0].id"),
        ("url", "http://push.example.com/", "webhooks[0].url"),
        ("url", "https://", "webhooks[0].url"),
        ("url", "https://x.example/" + String(repeating: "a", count: 200), "webhooks[0].url"),
        ("secret", "", "webhooks[0].secret"),
        ("secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "webhooks[0].secret"),
    ])
    func refused(key: String, value: String, field: String) throws {
        var entry = Self.good
        entry[key] = value
        let error = #expect(throws: CatalogError.self) { try CampusCatalog.decode(try Self.catalog(webhooks: [entry])) }
        #expect(error?.field == field, "\(error?.description ?? "no error")")
    }

    @Test("duplicate ids or URLs, and more than 16 receivers, are refused")
    func duplicatesAndBounds() throws {
        var other = Self.good
        other["url"] = "https://chat.example.com/hook"
        #expect(throws: CatalogError.self) { try CampusCatalog.decode(try Self.catalog(webhooks: [Self.good, other])) }
        other = Self.good
        other["id"] = "chat"
        #expect(throws: CatalogError.self) { try CampusCatalog.decode(try Self.catalog(webhooks: [Self.good, other])) }
        let many: [[String: Any]] = (0...CampusCatalog.maxWebhooks).map { ["id": "r\($0)", "url": "https://r\($0).example.com/", "secret": "s"] }
        let error = #expect(throws: CatalogError.self) { try CampusCatalog.decode(try Self.catalog(webhooks: many)) }
        #expect(error?.field == "webhooks")
    }
}
