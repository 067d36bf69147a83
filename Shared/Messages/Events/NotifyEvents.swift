/// What a notification is about.
public enum NotificationKind: String, Codable, Sendable, CaseIterable {
    case orderReady, orderCancelled, pickupReminder, noShow, regionReminder
}

/// `notify.delivery` on `notify.delivery.<device>.`: a notification for one device, text already
/// localized. `collapseId` is the order id, so a device shows one "ready" per order.
/// `notify.undeliverable` on `notify.undeliverable.`: recorded and not sent, with `reason`.
public struct DeviceNotification: Codable, Sendable, Equatable {
    public var notificationId: String
    public var deviceId: String
    public var kind: NotificationKind
    public var collapseId: String
    public var title: String
    public var body: String
    /// The language the text is in (BCP 47).
    public var language: String
    public var orderId: String?
    /// After this the notification is no longer worth showing (end of the pickup window).
    public var expiresAt: Timestamp?
    public var createdAt: Timestamp
    /// Why it was not delivered; nil when delivered.
    public var undeliverableReason: String?

    public init(notificationId: String, deviceId: String, kind: NotificationKind, collapseId: String, title: String, body: String, language: String, orderId: String?, expiresAt: Timestamp?, createdAt: Timestamp, undeliverableReason: String?) {
        self.notificationId = notificationId
        self.deviceId = deviceId
        self.kind = kind
        self.collapseId = collapseId
        self.title = title
        self.body = body
        self.language = language
        self.orderId = orderId
        self.expiresAt = expiresAt
        self.createdAt = createdAt
        self.undeliverableReason = undeliverableReason
    }
}
