/// Notification authorization as the device reports it. `ephemeral` is an App Clip's grant:
/// valid for 8 hours after each launch.
public enum NotificationAuthorization: String, Codable, Sendable, CaseIterable {
    case notDetermined, denied, authorized, provisional, ephemeral
}

/// `device.register`: where and how to notify a device.
public struct RegisterDevice: Codable, Sendable, Equatable {
    public var deviceId: String
    public var userId: String?
    /// Delivery channel name ("bus" publishes on `notify.delivery.<device>.`).
    public var channel: String
    /// Preferred language (BCP 47: "en", "de", "ja", …).
    public var language: String
    /// Formatting locale, e.g. "en_US".
    public var locale: String
    public var authorization: NotificationAuthorization
    public init(deviceId: String, userId: String?, channel: String, language: String, locale: String, authorization: NotificationAuthorization) {
        self.deviceId = deviceId
        self.userId = userId
        self.channel = channel
        self.language = language
        self.locale = locale
        self.authorization = authorization
    }
}

public struct Registration: Codable, Sendable, Equatable {
    public var deviceId: String
    public var language: String
    public var locale: String
    public var authorization: NotificationAuthorization
    /// For `ephemeral`: when the grant lapses.
    public var grantExpiresAt: Timestamp?
    public init(deviceId: String, language: String, locale: String, authorization: NotificationAuthorization, grantExpiresAt: Timestamp?) {
        self.deviceId = deviceId
        self.language = language
        self.locale = locale
        self.authorization = authorization
        self.grantExpiresAt = grantExpiresAt
    }
}

/// `inbox.list`: a device's notifications after `sinceId` (all when nil), oldest first.
public struct InboxQuery: Codable, Sendable, Equatable {
    public var deviceId: String
    public var sinceId: String?
    public var limit: Int?
    public init(deviceId: String, sinceId: String? = nil, limit: Int? = nil) {
        self.deviceId = deviceId
        self.sinceId = sinceId
        self.limit = limit
    }
}

public struct InboxReply: Codable, Sendable, Equatable {
    public var deviceId: String
    public var notifications: [DeviceNotification]
    public init(deviceId: String, notifications: [DeviceNotification]) {
        self.deviceId = deviceId
        self.notifications = notifications
    }
}
