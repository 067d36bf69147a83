import Campus
import Messages

/// What notification-service's requests must carry. Checked before anything is read or written,
/// so a refused request changes nothing.
public enum NotifyRequestRules {
    /// The delivery channels notification-service has.
    public static let channels = ["bus", "apns", "webhook"]
    /// How many notifications one inbox page may hold, and how many when the query does not say.
    public static let inboxLimits = 1...500
    public static let defaultInboxLimit = 50

    /// `device.register`: the ids, a supported channel with its destination (a webhook receiver
    /// the catalog's allow-list names; none without a catalog), a language tag and a locale.
    public static func checkRegistration(_ request: RegisterDevice, catalog: CampusCatalog? = nil) throws(ServiceError) {
        _ = try deviceId(request.deviceId)
        if let userId = request.userId { try TextRules.requireToken(userId, field: "userId") }
        guard channels.contains(request.channel) else {
            throw ServiceError(.notificationChannelUnsupported,
                               "channel \"\(request.channel.prefix(20))\" is not supported (supported: \(channels.joined(separator: ", ")))")
        }
        // The destination belongs to the apns channel and to no other: a token sent with "bus"
        // would be kept and never used, which the phone could not tell.
        if request.channel == "apns", request.apns == nil { throw ServiceError(.invalidField, "missing field body.apns (channel apns needs the device token, environment and topic)") }
        if request.channel != "apns", request.liveActivity != nil { throw ServiceError(.invalidField, "body.liveActivity needs channel apns") }
        if request.channel != "apns", request.apns != nil { throw ServiceError(.invalidField, "body.apns is only for channel apns, not \"\(request.channel.prefix(20))\"") }
        try checkWebhook(request, catalog: catalog)
        guard isValidLocaleIdentifier(request.language) else {
            throw ServiceError(.invalidNotificationLanguage, "language \"\(request.language.prefix(20))\" is not a language tag like en or de-CH")
        }
        guard isValidLocaleIdentifier(request.locale) else {
            throw ServiceError(.invalidNotificationLanguage, "locale \"\(request.locale.prefix(20))\" is not a locale identifier like en_US")
        }
    }

    /// The webhook destination belongs to channel webhook alone, and names a receiver the
    /// catalog allows: a device never brings an address of its own.
    static func checkWebhook(_ request: RegisterDevice, catalog: CampusCatalog?) throws(ServiceError) {
        guard request.channel == "webhook" else {
            if request.webhook != nil { throw ServiceError(.invalidField, "body.webhook is only for channel webhook, not \"\(request.channel.prefix(20))\"") }
            return
        }
        guard let webhook = request.webhook else {
            throw ServiceError(.invalidField, "missing field body.webhook (channel webhook needs the endpoint id from the campus catalog)")
        }
        guard catalog?.webhook(webhook.endpoint) != nil else {
            let allowed = (catalog?.webhooks ?? []).map(\.id)
            throw ServiceError(.unknownWebhook, "no webhook receiver \"\(webhook.endpoint.prefix(40))\" in the campus catalog (allowed: \(allowed.isEmpty ? "none" : allowed.joined(separator: ", ")))")
        }
    }

    /// The registration a `device.register` stores, launched now.
    public static func registration(_ request: RegisterDevice, now: Timestamp) throws(ServiceError) -> DeviceRegistration {
        DeviceRegistration(deviceId: try deviceId(request.deviceId), userId: request.userId, channel: request.channel, language: request.language,
                           locale: request.locale, authorization: request.authorization, launchedAt: now, apns: request.apns,
                           webhook: request.channel == "webhook" ? request.webhook : nil)
    }

    /// The page size of an inbox query.
    public static func inboxLimit(_ requested: Int?) throws(ServiceError) -> Int {
        if let requested, !inboxLimits.contains(requested) {
            throw ServiceError(.invalidField, "limit must be \(inboxLimits.lowerBound)–\(inboxLimits.upperBound), not \(requested)")
        }
        return requested ?? defaultInboxLimit
    }

    /// The refusal of an inbox `sinceId` the device does not have. It may have been one that
    /// retention deleted: the message says so, so the client reads from the start.
    public static func unknownSince(_ sinceId: String, deviceId: String, retentionDays: Int) -> ServiceError {
        ServiceError(.unknownNotification,
                     "sinceId \(sinceId.prefix(60)) is not a notification of device \(deviceId) (notifications are kept \(retentionDays) days)")
    }

    /// `reminder.set`: the ids, the text, and a café the campus has (any id without a catalog).
    public static func checkReminder(_ request: SetReminder, catalog: CampusCatalog?) throws(ServiceError) {
        _ = try deviceId(request.deviceId)
        guard TextRules.isToken(request.cafeId, max: 64) else {
            throw ServiceError(.invalidReminder, "cafeId must be 1–64 characters of A–Z, a–z, 0–9, - and _ (a café id such as caffe-macs)")
        }
        if let problem = RegionReminderRules.textProblem(request.text) { throw ServiceError(.invalidReminder, problem) }
        if let catalog, catalog.cafe(request.cafeId) == nil {
            throw ServiceError(.unknownReminderCafe, "no café \(request.cafeId) on the campus; cafés: \(catalog.cafes.map(\.id).joined(separator: ", "))")
        }
    }

    /// A request's device id, well formed. By the time a request reaches the rules a phone's
    /// left-out id was filled from its key (`Caller.actingDevice`); still none is a missing field.
    public static func deviceId(_ id: String?) throws(ServiceError) -> String {
        guard let id else { throw ServiceError(.invalidField, "missing field body.deviceId") }
        try TextRules.requireToken(id, field: "deviceId")
        return id
    }

    /// The refusal for a device that never registered.
    public static func unknownDevice(_ deviceId: String) -> ServiceError {
        ServiceError(.unknownNotificationDevice, "device \(deviceId) never registered for notifications (device.register)")
    }
}
