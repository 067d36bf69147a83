import Messages

/// A device as notification-service knows it.
public struct DeviceRegistration: Sendable, Equatable {
    public var deviceId: String
    public var userId: String?
    public var channel: String
    public var language: String
    public var locale: String
    public var authorization: NotificationAuthorization
    /// The last launch (`device.register`); for `ephemeral` it starts the 8-hour grant.
    public var launchedAt: Timestamp
    /// Channel `apns`: where APNs delivers.
    public var apns: APNsDestination?
    /// When APNs said the token is no longer valid (410 `Unregistered`, 400 `BadDeviceToken`), or
    /// a webhook receiver answered 410 for the device, and it was not registered again since:
    /// nothing more is sent to it.
    public var apnsRetiredAt: Timestamp?
    /// Channel `webhook`: the catalog's receiver and the device's address there.
    public var webhook: WebhookDestination?

    public init(deviceId: String, userId: String?, channel: String, language: String, locale: String, authorization: NotificationAuthorization, launchedAt: Timestamp,
                apns: APNsDestination? = nil, apnsRetiredAt: Timestamp? = nil, webhook: WebhookDestination? = nil) {
        self.deviceId = deviceId
        self.userId = userId
        self.channel = channel
        self.language = language
        self.locale = locale
        self.authorization = authorization
        self.launchedAt = launchedAt
        self.apns = apns
        self.apnsRetiredAt = apnsRetiredAt
        self.webhook = webhook
    }

    /// When an ephemeral grant lapses: 8 hours after the launch that gave it.
    public var grantExpiresAt: Timestamp? {
        authorization == .ephemeral ? launchedAt.adding(seconds: DeliveryPolicy.ephemeralGrantSeconds) : nil
    }
}

/// Why a notification was recorded and not sent. Stable strings: they travel in
/// `undeliverableReason` and operators count by them.
public enum UndeliverableReason {
    /// No registration for the device (the order named a device that never registered).
    public static let deviceUnknown = "device.unknown"
    /// The user turned notifications off.
    public static let denied = "authorization.denied"
    /// The app never asked for notification permission.
    public static let notDetermined = "authorization.notDetermined"
    /// An App Clip's grant ended 8 hours after its last launch.
    public static let ephemeralExpired = "ephemeral.expired"
    /// Past its `expiresAt` (the pickup window is over): showing it would only mislead.
    public static let expired = "notification.expired"
    /// APNs retired the device's token (410 `Unregistered` or 400 `BadDeviceToken`), or its
    /// webhook receiver answered 410 for it, and the device has not registered since.
    public static let tokenUnregistered = "token.unregistered"
}

/// Whether a notification may be delivered to a device now, and why not.
public enum DeliveryPolicy {
    /// An App Clip's ephemeral notification grant lasts 8 hours after each launch (WWDC20 10120).
    public static let ephemeralGrantSeconds = 8.0 * 3600

    /// The reason a notification cannot be delivered to the device now; nil when it can.
    /// `authorized` and `provisional` (delivered quietly) never lapse; `ephemeral` lapses 8 hours
    /// after the last launch, and a new launch renews it.
    public static func refusal(_ registration: DeviceRegistration?, now: Timestamp) -> String? {
        guard let registration else { return UndeliverableReason.deviceUnknown }
        if registration.apnsRetiredAt != nil { return UndeliverableReason.tokenUnregistered }
        switch registration.authorization {
        case .authorized, .provisional: return nil
        case .denied: return UndeliverableReason.denied
        case .notDetermined: return UndeliverableReason.notDetermined
        case .ephemeral:
            return now < registration.launchedAt.adding(seconds: ephemeralGrantSeconds) ? nil : UndeliverableReason.ephemeralExpired
        }
    }

    /// The device's refusal first (it is about the device), then the notification's own expiry.
    public static func refusal(_ registration: DeviceRegistration?, expiresAt: Timestamp?, now: Timestamp) -> String? {
        if let reason = refusal(registration, now: now) { return reason }
        if let expiresAt, now >= expiresAt { return UndeliverableReason.expired }
        return nil
    }
}
