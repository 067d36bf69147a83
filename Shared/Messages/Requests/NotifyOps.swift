/// Notification authorization as the device reports it. `ephemeral` is an App Clip's grant:
/// valid for 8 hours after each launch.
public enum NotificationAuthorization: String, Codable, Sendable, CaseIterable {
    case notDetermined, denied, authorized, provisional, ephemeral
}

/// `device.register`: where and how to notify a device. Each call is a launch: for `ephemeral`
/// it starts a new 8-hour grant.
public struct RegisterDevice: Codable, Sendable, Equatable {
    /// A phone may leave its own device and user out (they are taken from its key).
    public var deviceId: String?
    public var userId: String?
    /// Delivery channel name: "bus" publishes on `notify.delivery.<device>.`; "apns" also sends
    /// each delivery to Apple's push service, to `apns`; "webhook" also POSTs each, signed, to
    /// the catalog's receiver `webhook` names.
    public var channel: String
    /// Preferred language (BCP 47: "en", "de", "ja", …).
    public var language: String
    /// Formatting locale, e.g. "en_US".
    public var locale: String
    public var authorization: NotificationAuthorization
    /// For channel "apns" (required there, refused with any other): the device token, APNs
    /// environment and topic.
    public var apns: APNsDestination?
    /// With channel `apns`: a Live Activity the app started for one of its orders.
    public var liveActivity: LiveActivityToken?
    /// For channel "webhook" (required there, refused with any other): the catalog's receiver
    /// and the device's address there.
    public var webhook: WebhookDestination?
    public init(deviceId: String?, userId: String?, channel: String, language: String, locale: String, authorization: NotificationAuthorization,
                apns: APNsDestination? = nil, liveActivity: LiveActivityToken? = nil, webhook: WebhookDestination? = nil) {
        self.deviceId = deviceId
        self.userId = userId
        self.channel = channel
        self.language = language
        self.locale = locale
        self.authorization = authorization
        self.apns = apns
        self.liveActivity = liveActivity
        self.webhook = webhook
    }
}

/// The registration as stored.
public struct Registration: Codable, Sendable, Equatable {
    public var deviceId: String
    public var language: String
    public var locale: String
    public var authorization: NotificationAuthorization
    /// For `ephemeral`: when the grant lapses.
    public var grantExpiresAt: Timestamp?
    /// The catalog language notifications will be written in ("en" when `language` has no catalog).
    public var notificationLanguage: String?
    /// This registration (launch) as the service recorded it.
    public var launchedAt: Timestamp?
    public init(deviceId: String, language: String, locale: String, authorization: NotificationAuthorization, grantExpiresAt: Timestamp?,
                notificationLanguage: String? = nil, launchedAt: Timestamp? = nil) {
        self.deviceId = deviceId
        self.language = language
        self.locale = locale
        self.authorization = authorization
        self.grantExpiresAt = grantExpiresAt
        self.notificationLanguage = notificationLanguage
        self.launchedAt = launchedAt
    }
}

/// `inbox.list`: a device's delivered notifications after `sinceId` (all when nil), oldest
/// first, at most `limit` (default 50, at most 500).
public struct InboxQuery: Codable, Sendable, Equatable {
    /// A phone may leave its own device out (it is taken from its key).
    public var deviceId: String?
    public var sinceId: String?
    public var limit: Int?
    public init(deviceId: String?, sinceId: String? = nil, limit: Int? = nil) {
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

/// `reminder.set`: "when I arrive at this café, remind me …". Delivered on the device's arrival
/// (the campus monitor's condition for the café satisfied): no "always" location needed.
public struct SetReminder: Codable, Sendable, Equatable {
    /// A phone may leave its own device out (it is taken from its key).
    public var deviceId: String?
    /// The café id (the campus monitor's condition identifier).
    public var cafeId: String
    /// The user's words, 1–200 characters, shown as the notification's body.
    public var text: String
    /// Fire once and end (the default), or on every arrival until cancelled.
    public var oneShot: Bool?
    public init(deviceId: String?, cafeId: String, text: String, oneShot: Bool? = nil) {
        self.deviceId = deviceId
        self.cafeId = cafeId
        self.text = text
        self.oneShot = oneShot
    }
}

/// `reminder.list`: a device's region reminders.
public struct ReminderQuery: Codable, Sendable, Equatable {
    /// A phone may leave its own device out (it is taken from its key).
    public var deviceId: String?
    /// Also the ones that have fired (one-shot) or were cancelled.
    public var includeDone: Bool?
    public init(deviceId: String?, includeDone: Bool? = nil) {
        self.deviceId = deviceId
        self.includeDone = includeDone
    }
}

/// `reminder.cancel`: ends one of a device's region reminders.
public struct CancelReminder: Codable, Sendable, Equatable {
    /// A phone may leave its own device out (it is taken from its key).
    public var deviceId: String?
    public var reminderId: String
    public init(deviceId: String?, reminderId: String) {
        self.deviceId = deviceId
        self.reminderId = reminderId
    }
}

/// Where a region reminder stands.
public enum ReminderState: String, Codable, Sendable, CaseIterable {
    /// Waiting for the device to arrive.
    case active
    /// A one-shot reminder that has fired.
    case fired
    case cancelled
}

/// A region reminder as stored.
public struct RegionReminder: Codable, Sendable, Equatable {
    public var reminderId: String
    public var deviceId: String
    public var cafeId: String
    public var text: String
    public var oneShot: Bool
    public var state: ReminderState
    public var createdAt: Timestamp
    /// The last arrival that delivered it.
    public var firedAt: Timestamp?
    public init(reminderId: String, deviceId: String, cafeId: String, text: String, oneShot: Bool, state: ReminderState, createdAt: Timestamp, firedAt: Timestamp?) {
        self.reminderId = reminderId
        self.deviceId = deviceId
        self.cafeId = cafeId
        self.text = text
        self.oneShot = oneShot
        self.state = state
        self.createdAt = createdAt
        self.firedAt = firedAt
    }
}

public struct ReminderList: Codable, Sendable, Equatable {
    public var deviceId: String
    public var reminders: [RegionReminder]
    public init(deviceId: String, reminders: [RegionReminder]) {
        self.deviceId = deviceId
        self.reminders = reminders
    }
}
