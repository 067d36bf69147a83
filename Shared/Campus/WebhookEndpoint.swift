/// A receiver the notification service may POST signed deliveries to (a company's Android push
/// service, chat, SMS). The catalog's allow-list is the only place an address comes from: a
/// device registers one of these by id, never a URL of its own, so the service makes no request
/// to an address the catalog does not name. The signing secret is not here: `secret` names it,
/// and notification-service reads it from a file its options give.
public struct WebhookEndpoint: Codable, Sendable, Equatable {
    /// What a device registers: 1–40 of a-z, 0-9 and -.
    public var id: String
    /// Where deliveries go: an https URL of at most 200 characters.
    public var url: String
    /// The name of the shared secret (1–40 of a-z, 0-9 and -), never the secret itself.
    public var secret: String

    public init(id: String, url: String, secret: String) {
        self.id = id
        self.url = url
        self.secret = secret
    }
}

extension CampusCatalog {
    /// The most receivers a catalog names.
    public static let maxWebhooks = 16

    /// The allowed receiver with this id.
    public func webhook(_ id: String) -> WebhookEndpoint? { (webhooks ?? []).first { $0.id == id } }

    /// The allow-list's rules: bounded, unique ids and URLs, https only, a secret named.
    func validateWebhooks() throws {
        let list = webhooks ?? []
        guard list.count <= Self.maxWebhooks else {
            throw CatalogError(field: "webhooks", problem: "\(list.count) receivers; at most \(Self.maxWebhooks)")
        }
        var ids = Set<String>(), urls = Set<String>()
        for (index, endpoint) in list.enumerated() {
            let at = "webhooks[\(index)]"
            guard Self.isIdentifier(endpoint.id), ids.insert(endpoint.id).inserted else {
                throw CatalogError(field: "\(at).id", problem: "\"\(endpoint.id.prefix(40))\" is not a unique identifier")
            }
            guard Self.isClipURL(endpoint.url), urls.insert(endpoint.url).inserted else {
                throw CatalogError(field: "\(at).url", problem: "\"\(endpoint.url.prefix(80))\" must be a unique https URL of at most 200 characters")
            }
            guard Self.isIdentifier(endpoint.secret) else {
                throw CatalogError(field: "\(at).secret", problem: "must name a secret: 1–40 of a-z, 0-9 and -")
            }
        }
    }
}
