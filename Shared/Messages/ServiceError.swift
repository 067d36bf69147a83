/// An error as it travels in a reply: a stable dotted code and a human message.
public struct ServiceError: Error, Sendable, Codable, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String
    /// Machine-readable facts a client can act on, e.g. `nextFreeStart` for a full window.
    public let details: [String: String]?

    public init(_ code: ErrorCode, _ message: String, details: [String: String]? = nil) {
        self.code = code.rawValue
        self.message = message
        self.details = details
    }

    public init(code: String, message: String, details: [String: String]? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    public var description: String { "\(code): \(message)" }
}

/// Every error code the platform puts on the wire. Stable: clients match on these strings.
public struct ErrorCode: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    // Wire-level (any socket).
    public static let malformed: ErrorCode = "request.malformed"
    public static let unknownOp: ErrorCode = "request.unknownOp"
    public static let invalidField: ErrorCode = "request.invalidField"
    public static let tooLarge: ErrorCode = "request.tooLarge"
    /// The caller is over its request budget; `details.retryAfterMs` says when to try again.
    public static let rateLimited: ErrorCode = "request.rateLimited"
    /// The service's share for this kind of work (replay) is full; `details.retryAfterMs` says when to try again.
    public static let busy: ErrorCode = "request.busy"
    /// `replay` from a seq its publisher has pruned (older than its replay window); `details.oldestSeq`.
    public static let replayPruned: ErrorCode = "replay.pruned"
    public static let internalError: ErrorCode = "internal.error"
    public static let unknownType: ErrorCode = "message.unknownType"
    public static let unsupportedVersion: ErrorCode = "message.unsupportedVersion"
    public static let messageMalformed: ErrorCode = "message.malformed"
    public static let messageTooLarge: ErrorCode = "message.tooLarge"
    /// Deployed mode: the caller's key (its role or scope) may not do this; nothing was changed.
    public static let forbidden: ErrorCode = "auth.forbidden"
    /// Client side: no reply came within the client's timeout (never sent by a service).
    public static let clientTimeout: ErrorCode = "client.timeout"

    // Location.
    public static let authorizationDenied: ErrorCode = "location.authorizationDenied"
    public static let authorizationRestricted: ErrorCode = "location.authorizationRestricted"
    public static let authorizationNotDetermined: ErrorCode = "location.authorizationNotDetermined"
    public static let notInForeground: ErrorCode = "location.notInForeground"
    public static let oneTimeGrantExpired: ErrorCode = "location.oneTimeGrantExpired"
    public static let rangingUnavailable: ErrorCode = "location.rangingUnavailable"
    public static let unknownDevice: ErrorCode = "location.unknownDevice"
    public static let wrongShard: ErrorCode = "ingest.wrongShard"
    public static let unknownMonitor: ErrorCode = "monitor.unknown"
    public static let unknownCondition: ErrorCode = "monitor.unknownCondition"
    /// The monitor is held by another owner (or is the built-in campus monitor).
    public static let monitorOwned: ErrorCode = "monitor.owned"
    /// A change to a monitor by someone who has not opened it.
    public static let notMonitorOwner: ErrorCode = "monitor.notOwner"
    public static let conditionLimitExceeded: ErrorCode = "monitor.conditionLimitExceeded"
    public static let monitorLimitExceeded: ErrorCode = "monitor.limitExceeded"
    public static let invalidCondition: ErrorCode = "monitor.invalidCondition"
    /// A confirmation region wider than 500 m.
    public static let regionTooLarge: ErrorCode = "location.regionTooLarge"

    // Orders.
    public static let unknownCafe: ErrorCode = "order.unknownCafe"
    public static let unknownItem: ErrorCode = "order.unknownItem"
    public static let invalidQuantity: ErrorCode = "order.invalidQuantity"
    public static let windowFull: ErrorCode = "order.windowFull"
    public static let windowClosed: ErrorCode = "order.windowClosed"
    public static let windowPast: ErrorCode = "order.windowPast"
    public static let unknownWindow: ErrorCode = "order.unknownWindow"
    public static let unknownReservation: ErrorCode = "order.unknownReservation"
    public static let reservationExpired: ErrorCode = "order.reservationExpired"
    public static let paymentRequired: ErrorCode = "order.paymentRequired"
    public static let invalidPaymentToken: ErrorCode = "order.invalidPaymentToken"
    public static let idempotencyConflict: ErrorCode = "order.idempotencyConflict"
    public static let invalidIdempotencyKey: ErrorCode = "order.invalidIdempotencyKey"
    public static let unknownOrder: ErrorCode = "order.unknown"
    public static let illegalTransition: ErrorCode = "order.illegalTransition"
    /// An item marked unavailable at the café (86'd); the message names it.
    public static let itemUnavailable: ErrorCode = "order.itemUnavailable"
    /// A catalog that did not read or validate: the service keeps the one it has.
    public static let catalogInvalid: ErrorCode = "catalog.invalid"
    /// `backup.read` of a copy this service no longer holds (another was started, or it expired).
    public static let unknownBackup: ErrorCode = "backup.unknown"
    /// The copy could not be made (the disk full, an I/O error); the service runs on unharmed.
    public static let backupFailed: ErrorCode = "backup.failed"
    /// A customer acting on an order that is not theirs.
    public static let notOrderOwner: ErrorCode = "order.notOwner"
    /// region-monitor did not answer the location confirmation an App Clip payment waits for.
    public static let confirmationUnavailable: ErrorCode = "order.confirmationUnavailable"

    // App Clips (the names of APActivationPayload's errors, plus the "no" answer).
    /// The scanned code's URL is not one the catalog issued, or it belongs to another café.
    public static let clipDoesNotMatch: ErrorCode = "appClip.doesNotMatch"
    /// Location may not be confirmed: denied or approximate location, or the clip was not launched from a physical code.
    public static let clipDisallowed: ErrorCode = "appClip.disallowed"
    /// A fresh precise fix puts the device outside the café's region when the code was scanned.
    public static let clipNotInRegion: ErrorCode = "appClip.notInRegion"

    // Kitchen.
    public static let unknownTicket: ErrorCode = "kitchen.unknownTicket"
    public static let ticketIllegalTransition: ErrorCode = "kitchen.illegalTransition"
    /// A recall after the recall window closed.
    public static let recallWindowClosed: ErrorCode = "kitchen.recallWindowClosed"
    /// A kitchen command naming an order the kitchen has no ticket of.
    public static let kitchenUnknownOrder: ErrorCode = "kitchen.unknownOrder"

    // Notifications.
    public static let unknownNotificationDevice: ErrorCode = "notify.unknownDevice"
    /// A delivery channel other than "bus", "apns" and "webhook".
    public static let notificationChannelUnsupported: ErrorCode = "notify.channelUnsupported"
    /// A language or locale that is not a tag like "de" or "de_DE".
    public static let invalidNotificationLanguage: ErrorCode = "notify.invalidLanguage"
    /// An inbox `sinceId` that is not one of the device's notifications.
    public static let unknownNotification: ErrorCode = "notify.unknownNotification"
    /// Reminder text empty, too long or with control characters, or a café id that is not a token.
    public static let invalidReminder: ErrorCode = "notify.invalidReminder"
    public static let unknownReminder: ErrorCode = "notify.unknownReminder"
    public static let reminderLimitExceeded: ErrorCode = "notify.reminderLimitExceeded"
    /// A reminder for a café the campus catalog does not have.
    public static let unknownReminderCafe: ErrorCode = "notify.unknownCafe"
    /// A webhook receiver the campus catalog's allow-list does not name.
    public static let unknownWebhook: ErrorCode = "notify.unknownWebhook"
}
