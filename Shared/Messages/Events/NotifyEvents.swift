/// What a notification is about.
public enum NotificationKind: String, Codable, Sendable, CaseIterable {
    /// The order is ready for pickup (one per order and device: collapse id = order id).
    case orderReady
    /// The order was cancelled; the body carries the reason when order-service gave one.
    case orderCancelled
    /// The order's pickup window starts soon (a configurable lead time before it).
    case pickupReminder
    /// The order was not picked up by the end of its window.
    case noShow
    /// A reminder the user set for a café, delivered when the device arrives there.
    case regionReminder
    /// The kitchen took a ready order back ("a moment longer"); the next ready notifies again.
    case orderDelayed
    /// The order is past its window and grace and not ready yet ("running late"); once per order.
    case orderLate
}

/// `notify.delivery` on `notify.delivery.<device>.`: a notification for one device, text already
/// localized. `collapseId` is the order id (the reminder id for a region reminder), so a device
/// shows one "ready" per order.
/// `notify.undeliverable` on `notify.undeliverable.`: recorded and not sent, with `undeliverableReason`.
public struct DeviceNotification: Codable, Sendable, Equatable {
    public var notificationId: String
    public var deviceId: String
    public var kind: NotificationKind
    public var collapseId: String
    public var title: String
    public var body: String
    /// The language the text is in (a catalog language: en, de, fr, es, ja).
    public var language: String
    public var orderId: String?
    /// After this the notification is no longer worth showing (end of the pickup window).
    public var expiresAt: Timestamp?
    public var createdAt: Timestamp
    /// Why it was not delivered; nil when delivered.
    public var undeliverableReason: String?
    /// The device's preferred language when the catalog does not have it and `language` is the
    /// English fallback; nil when the text is in the preferred language.
    public var requestedLanguage: String?
    /// For a region reminder: the reminder that fired.
    public var reminderId: String?
    /// The café the notification is about.
    public var cafeId: String?

    public init(notificationId: String, deviceId: String, kind: NotificationKind, collapseId: String, title: String, body: String, language: String, orderId: String?, expiresAt: Timestamp?, createdAt: Timestamp, undeliverableReason: String?,
                requestedLanguage: String? = nil, reminderId: String? = nil, cafeId: String? = nil) {
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
        self.requestedLanguage = requestedLanguage
        self.reminderId = reminderId
        self.cafeId = cafeId
    }
}
