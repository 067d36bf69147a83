import Messages
import Policy

/// The REST API, version 1: every route the edge answers. A phone (an app or an App Clip), a
/// kiosk and a kitchen tablet reach through it each op they may call over ZeroMQ today; the op
/// table (`OpAccess`) still decides at the service, and a route's roles are never wider than its op's.
public enum RouteTable {
    /// The roles that hold HTTP sessions. Services and gateways keep their CURVE keys; an operator
    /// has one session kind only for the status page, and no route that forwards an op is open to it.
    public static let sessionRoles: Set<Role> = [.phone, .kiosk, .kitchen, .operator]

    /// Every route of `/v1`.
    public static let v1: [Route] = meta + sessions + devices + ordering + kitchen + streams + screens

    /// The API describing itself.
    static let meta: [Route] = [
        Route(.get, "/v1/openapi.json", .openAPI, access: .anyone, summary: "This API described as OpenAPI 3.1", reply: "OpenAPIDocument"),
    ]

    /// Placeholders the identity part fills: the routes exist so the table, the document and the
    /// tests know them; their bodies are the identity part's.
    static let sessions: [Route] = [
        Route(.post, "/v1/sessions", .session(.signIn), access: .anyone, summary: "Sign in with an OpenID Connect ID token for a bearer session",
              body: .object(schema: "SignInRequest", required: true), reply: "Session"),
        Route(.post, "/v1/sessions/guest", .session(.guest), access: .anyone, summary: "An App Clip's guest session, bound to its device",
              body: .object(schema: "GuestSessionRequest", required: true), reply: "Session"),
        Route(.get, "/v1/sessions/current", .session(.current), access: .roles(sessionRoles), summary: "The session the bearer token names",
              reply: "Session"),
        Route(.delete, "/v1/sessions/current", .session(.signOut), access: .roles(sessionRoles), summary: "Sign out: revoke the bearer token's session",
              reply: "Session"),
    ]

    static let locale = Parameter.query("locale", .string(maxBytes: 35), summary: "the caller's locale, e.g. en_US: prices and times are formatted for it")
    static let requiredLocale = Parameter.query("locale", .string(maxBytes: 35), required: true, summary: "the caller's locale, e.g. en_US")
    static let idempotencyKey = Parameter("Idempotency-Key", in: .header, .string(maxBytes: 64), required: true, member: "idempotencyKey",
                                          summary: "8–64 characters of A–Z a–z 0–9 _ -; a retry with the same key and body gets the first answer")
    static let cafeFilter = Parameter.query("cafeId", .string(maxBytes: 64), summary: "the kitchen's café (the default) or another it may see")
    static let stationFilter = Parameter.query("station", .string(maxBytes: 64), summary: "one station")
    static let includeDone = Parameter.query("includeDone", .boolean, summary: "also what is finished")

    /// A phone's device and user: registration, location, inbox, reminders, claims, preference.
    static let devices: [Route] = [
        Route(.put, "/v1/devices/{deviceId}/registration", .op(Op.deviceRegister), access: .roles([.phone]),
              summary: "Register the device for notifications (each call is a launch)", body: .object(schema: "RegisterDevice", required: true), reply: "Registration"),
        Route(.put, "/v1/devices/{deviceId}/location-authorization", .op(Op.ingestReport), access: .roles([.phone]),
              summary: "The device's location authorization and capabilities, as it changes", body: .member("status", schema: "DeviceStatusReport"),
              reply: "IngestResult"),
        Route(.post, "/v1/devices/{deviceId}/sightings", .op(Op.ingestReport), access: .roles([.phone]),
              summary: "A batch of the app's ranging results and fixes (at most 500 sightings and 100 fixes)",
              body: .object(schema: "IngestReport", required: true), reply: "IngestResult"),
        Route(.get, "/v1/devices/{deviceId}/nearest", .op(Op.nearestGet), access: .roles([.phone]),
              summary: "The nearest café and station by beacon, and cafés by distance", reply: "NearestAnswer"),
        Route(.post, "/v1/devices/{deviceId}/location-confirmations", .op(Op.locationConfirm), access: .roles([.phone]),
              summary: "App Clip location confirmation: was the device in the region when it scanned the code",
              body: .object(schema: "ConfirmLocation", required: true), reply: "LocationConfirmation"),
        Route(.get, "/v1/devices/{deviceId}/inbox", .op(Op.inboxList), access: .roles([.phone]), summary: "The device's delivered notifications, oldest first",
              query: [.query("sinceId", .string(maxBytes: 64), summary: "only those after this notification"),
                      .query("limit", .integer(1...500), summary: "at most this many (default 50)")],
              reply: "InboxReply"),
        Route(.post, "/v1/devices/{deviceId}/reminders", .op(Op.reminderSet), access: .roles([.phone]), summary: "Remind me when I arrive at a café",
              body: .object(schema: "SetReminder", required: true), reply: "RegionReminder"),
        Route(.get, "/v1/devices/{deviceId}/reminders", .op(Op.reminderList), access: .roles([.phone]), summary: "The device's reminders",
              query: [includeDone], reply: "ReminderList"),
        Route(.delete, "/v1/devices/{deviceId}/reminders/{reminderId}", .op(Op.reminderCancel), access: .roles([.phone]), summary: "End a reminder",
              reply: "RegionReminder"),
        Route(.post, "/v1/devices/{deviceId}/order-claims", .op(Op.orderClaim), access: .roles([.phone]),
              summary: "After sign-in: move the device's App Clip guest orders to the user", body: .object(schema: "ClaimOrdersRequest", required: false),
              reply: "ClaimOrdersReply"),
        Route(.get, "/v1/users/{userId}/preference", .op(Op.preferenceGet), access: .roles([.phone]), summary: "The user's default location",
              reply: "PreferenceView"),
        Route(.put, "/v1/users/{userId}/preference", .op(Op.preferenceSet), access: .roles([.phone]),
              summary: "Set the user's default location: closest to me, or one café", body: .member("preference", schema: "LocationPreference"),
              reply: "PreferenceView"),
    ]
}
