/// Where a webhook delivers for a device (`device.register` with channel `webhook`): one of the
/// campus catalog's allowed receivers, by id (never a URL: the address comes from the catalog
/// alone), and optionally the device's address at that receiver (an Android push token, a chat
/// handle), passed on in every delivery's body. Checked where it is decoded: an id or recipient
/// that does not fit is `request.invalidField` naming the field.
public struct WebhookDestination: Codable, Sendable, Equatable, Hashable {
    /// The receiver's id in the catalog's `webhooks`: 1–40 of a-z, 0-9 and -.
    public var endpoint: String
    /// The device's address at the receiver, opaque here: 1–512 bytes of visible ASCII.
    public var recipient: String?

    /// The longest endpoint id (the catalog's identifier rule).
    public static let maxEndpointBytes = 40
    /// The longest recipient: an FCM registration token is about 160 bytes.
    public static let maxRecipientBytes = 512

    public init(endpoint: String, recipient: String? = nil) {
        self.endpoint = endpoint
        self.recipient = recipient
    }

    enum CodingKeys: String, CodingKey { case endpoint, recipient }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let endpoint = try c.decode(String.self, forKey: .endpoint)
        guard Self.isEndpointId(endpoint) else {
            throw DecodingError.dataCorruptedError(forKey: .endpoint, in: c, debugDescription: "must be 1–\(Self.maxEndpointBytes) of a-z, 0-9 and - (a receiver id from the campus catalog)")
        }
        let recipient = try c.decodeIfPresent(String.self, forKey: .recipient)
        if let recipient, !Self.isRecipient(recipient) {
            throw DecodingError.dataCorruptedError(forKey: .recipient, in: c, debugDescription: "must be 1–\(Self.maxRecipientBytes) bytes of visible ASCII")
        }
        self.init(endpoint: endpoint, recipient: recipient)
    }

    /// Whether `text` is a receiver id: 1–40 of a-z, 0-9 and -.
    public static func isEndpointId(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count <= maxEndpointBytes && bytes.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }
    }

    /// Whether `text` is a recipient: 1–512 bytes, each visible ASCII (0x21…0x7E).
    public static func isRecipient(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count <= maxRecipientBytes && bytes.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
    }
}
