import Messages

/// The HTTP status each error code is answered with. Every code in `ServiceError.swift` and
/// `EdgeErrorCodes` has one here (a test holds the table to both files), so a client can act on
/// the status alone and read the code for the detail.
///
/// The rules: a malformed request is 400, a missing or bad session 401, a caller outside its
/// role or scope 403, a path naming nothing 404, a request the current state refuses (a full
/// window, a transition, a used idempotency key, a limit reached) 409, a body or field the rules
/// refuse 422, a service that is down or busy 503, one that did not answer in time 504. Codes a
/// client cannot cause (a bus message, an op the service does not answer) are the edge's fault: 500
/// or, for what a service sent back unreadable, 502.
public enum ProblemStatus {
    /// The status of `code`; 500 for a code this build does not know (a newer service's).
    public static func status(of code: String) -> Int {
        statuses[code] ?? 500
    }

    /// Code → status, for every code declared in `ServiceError.swift` and `EdgeErrorCodes`.
    public static let statuses: [String: Int] = [
        // Wire level.
        ErrorCode.malformed.rawValue: 400,
        ErrorCode.unknownOp.rawValue: 500,
        ErrorCode.invalidField.rawValue: 422,
        ErrorCode.tooLarge.rawValue: 413,
        ErrorCode.rateLimited.rawValue: 429,
        ErrorCode.busy.rawValue: 503,
        ErrorCode.internalError.rawValue: 500,
        // `replay` is no HTTP route: a client cannot ask for a pruned range.
        ErrorCode.replayPruned.rawValue: 500,
        // Backups are the operator's over the request socket, no HTTP route.
        ErrorCode.unknownBackup.rawValue: 500,
        ErrorCode.backupFailed.rawValue: 500,
        ErrorCode.unknownType.rawValue: 502,
        ErrorCode.unsupportedVersion.rawValue: 502,
        ErrorCode.messageMalformed.rawValue: 502,
        ErrorCode.messageTooLarge.rawValue: 502,
        ErrorCode.forbidden.rawValue: 403,
        ErrorCode.clientTimeout.rawValue: 504,

        // Location: the device's own authorization refuses it (its state, not the caller's role).
        ErrorCode.authorizationDenied.rawValue: 409,
        ErrorCode.authorizationRestricted.rawValue: 409,
        ErrorCode.authorizationNotDetermined.rawValue: 409,
        ErrorCode.notInForeground.rawValue: 409,
        ErrorCode.oneTimeGrantExpired.rawValue: 409,
        ErrorCode.rangingUnavailable.rawValue: 409,
        ErrorCode.unknownDevice.rawValue: 404,
        // The edge asked the wrong shard: its routing is behind, a retry reaches the right one.
        ErrorCode.wrongShard.rawValue: 503,
        ErrorCode.unknownMonitor.rawValue: 404,
        ErrorCode.unknownCondition.rawValue: 404,
        ErrorCode.monitorOwned.rawValue: 409,
        ErrorCode.notMonitorOwner.rawValue: 403,
        ErrorCode.conditionLimitExceeded.rawValue: 409,
        ErrorCode.monitorLimitExceeded.rawValue: 409,
        ErrorCode.invalidCondition.rawValue: 422,
        ErrorCode.regionTooLarge.rawValue: 422,

        // Orders.
        ErrorCode.unknownCafe.rawValue: 404,
        ErrorCode.unknownItem.rawValue: 422,
        ErrorCode.invalidQuantity.rawValue: 422,
        ErrorCode.windowFull.rawValue: 409,
        ErrorCode.windowClosed.rawValue: 422,
        ErrorCode.windowPast.rawValue: 409,
        ErrorCode.unknownWindow.rawValue: 422,
        ErrorCode.unknownReservation.rawValue: 422,
        ErrorCode.reservationExpired.rawValue: 409,
        ErrorCode.paymentRequired.rawValue: 422,
        ErrorCode.invalidPaymentToken.rawValue: 422,
        ErrorCode.idempotencyConflict.rawValue: 409,
        ErrorCode.invalidIdempotencyKey.rawValue: 400,
        ErrorCode.unknownOrder.rawValue: 404,
        ErrorCode.illegalTransition.rawValue: 409,
        ErrorCode.itemUnavailable.rawValue: 409,
        ErrorCode.catalogInvalid.rawValue: 422,
        ErrorCode.notOrderOwner.rawValue: 403,
        ErrorCode.confirmationUnavailable.rawValue: 503,

        // App Clips: a code of another café is a bad field; where the phone was forbids the order.
        ErrorCode.clipDoesNotMatch.rawValue: 422,
        ErrorCode.clipDisallowed.rawValue: 403,
        ErrorCode.clipNotInRegion.rawValue: 403,

        // Kitchen.
        ErrorCode.unknownTicket.rawValue: 404,
        ErrorCode.ticketIllegalTransition.rawValue: 409,
        ErrorCode.recallWindowClosed.rawValue: 409,
        ErrorCode.kitchenUnknownOrder.rawValue: 404,

        // Notifications.
        ErrorCode.unknownNotificationDevice.rawValue: 404,
        ErrorCode.notificationChannelUnsupported.rawValue: 422,
        ErrorCode.invalidNotificationLanguage.rawValue: 422,
        // A sinceId the inbox no longer has: the client reads from the start.
        ErrorCode.unknownNotification.rawValue: 409,
        ErrorCode.invalidReminder.rawValue: 422,
        ErrorCode.unknownReminder.rawValue: 404,
        ErrorCode.reminderLimitExceeded.rawValue: 409,
        ErrorCode.unknownReminderCafe.rawValue: 422,
        ErrorCode.unknownWebhook.rawValue: 422,

        // The edge's own.
        ErrorCode.httpNotFound.rawValue: 404,
        ErrorCode.httpMethodNotAllowed.rawValue: 405,
        ErrorCode.httpUnsupportedMediaType.rawValue: 415,
        ErrorCode.httpURITooLong.rawValue: 414,
        ErrorCode.httpHeadersTooLarge.rawValue: 431,
        ErrorCode.httpUnauthenticated.rawValue: 401,
        ErrorCode.httpRateLimited.rawValue: 429,
        ErrorCode.httpServiceUnavailable.rawValue: 503,
    ]

    /// The reason phrase of each status the edge answers with (RFC 9110), for a problem's `title`
    /// and the zmq-http `reason`.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}
