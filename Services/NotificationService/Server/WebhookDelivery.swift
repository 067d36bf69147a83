import Foundation
import Messages

/// One webhook POST: the notification as JSON and its Standard Webhooks headers. Made again at
/// every attempt with the same `webhook-id` (the notification's id), so a receiver that got an
/// earlier copy can drop this one; only the timestamp and so the signature change.
public struct WebhookDelivery: Sendable, Equatable {
    public let body: [UInt8]
    public let headers: [(name: String, value: String)]

    /// The delivery of `notification` for the device's `recipient` at the receiver (as it
    /// registered it), signed with `signer` at `now`.
    public init(notification: DeviceNotification, recipient: String? = nil, signer: WebhookSignature, now: Timestamp) {
        let payload = Payload(id: notification.notificationId, kind: notification.kind.rawValue, title: notification.title, body: notification.body,
                              language: notification.language, orderId: notification.orderId, createdAt: notification.createdAt, expiresAt: notification.expiresAt,
                              recipient: recipient)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        body = [UInt8]((try? encoder.encode(payload)) ?? Data("{}".utf8))
        let seconds = now.milliseconds / 1_000
        headers = [("content-type", "application/json"), ("webhook-id", notification.notificationId), ("webhook-timestamp", String(seconds)),
                   ("webhook-signature", signer.header(id: notification.notificationId, timestamp: seconds, body: body))]
    }

    public static func == (a: WebhookDelivery, b: WebhookDelivery) -> Bool {
        a.body == b.body && a.headers.map { "\($0.name):\($0.value)" } == b.headers.map { "\($0.name):\($0.value)" }
    }

    /// What a receiver reads: the notification's text, whom it is for and when it stops being worth showing.
    struct Payload: Encodable {
        var id: String
        var kind: String
        var title: String
        var body: String
        var language: String
        var orderId: String?
        var createdAt: Timestamp
        var expiresAt: Timestamp?
        /// The device's address at the receiver (an Android push token, a chat handle), when it gave one.
        var recipient: String?
    }
}
