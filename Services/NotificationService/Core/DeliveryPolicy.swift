import Messages

/// A device as notification-service knows it.
public struct DeviceRegistration: Sendable, Equatable {
    public var deviceId: String
    public var userId: String?
    public var channel: String
    public var language: String
    public var locale: String
    public var authorization: NotificationAuthorization
    /// The last App Clip launch (renews an ephemeral grant).
    public var launchedAt: Timestamp

    public init(deviceId: String, userId: String?, channel: String, language: String, locale: String, authorization: NotificationAuthorization, launchedAt: Timestamp) {
        self.deviceId = deviceId
        self.userId = userId
        self.channel = channel
        self.language = language
        self.locale = locale
        self.authorization = authorization
        self.launchedAt = launchedAt
    }

    /// When an ephemeral grant lapses: 8 hours after the launch that gave it.
    public var grantExpiresAt: Timestamp? {
        authorization == .ephemeral ? launchedAt.adding(seconds: DeliveryPolicy.ephemeralGrantSeconds) : nil
    }
}

/// Whether a notification may be delivered to a device now, and why not.
public enum DeliveryPolicy {
    /// An App Clip's ephemeral notification grant lasts 8 hours after each launch.
    public static let ephemeralGrantSeconds = 8.0 * 3600

    /// The reason a notification cannot be delivered; nil when it can.
    public static func refusal(_ registration: DeviceRegistration?, now: Timestamp) -> String? {
        guard let registration else { return "device.unknown" }
        switch registration.authorization {
        case .authorized, .provisional: return nil
        case .denied: return "authorization.denied"
        case .notDetermined: return "authorization.notDetermined"
        case .ephemeral:
            return now < registration.launchedAt.adding(seconds: ephemeralGrantSeconds) ? nil : "ephemeral.expired"
        }
    }
}
