/// The principal a request acts for when it comes through the HTTP edge (issue 26): the edge
/// authenticated a phone, an App Clip guest, a kiosk or a kitchen tablet by its session and
/// forwards the request for it, naming it in the request's `onBehalfOf`. A service honours it only
/// from a connection whose key has role `edge` (or from the plain-mode developer, who may do
/// anything anyway); it then holds the request to this principal exactly as to a CURVE key of its
/// role. Checked by `Caller.acting(onBehalfOf:)` in the Policy module.
public struct OnBehalfOf: Codable, Sendable, Equatable {
    /// `phone`, `kiosk` or `kitchen`: the roles a session at the edge may have.
    public var role: String
    /// The principal's name in logs and refusals (the session's subject, "phone-alice").
    public var name: String
    /// A phone's user; none for an App Clip guest, whose orders stay a guest's until claimed.
    public var userId: String?
    /// A phone's device (an App Clip guest's too).
    public var deviceId: String?
    /// A kiosk's or kitchen's café.
    public var cafeId: String?

    public init(role: String, name: String, userId: String? = nil, deviceId: String? = nil, cafeId: String? = nil) {
        self.role = role
        self.name = name
        self.userId = userId
        self.deviceId = deviceId
        self.cafeId = cafeId
    }

    /// A phone signed in as `userId` on `deviceId`, or an App Clip guest (`userId` nil).
    public static func phone(_ name: String, userId: String?, deviceId: String) -> OnBehalfOf {
        OnBehalfOf(role: "phone", name: name, userId: userId, deviceId: deviceId)
    }

    /// A kiosk or kitchen tablet of `cafeId` (`role` "kiosk" or "kitchen").
    public static func counter(_ role: String, _ name: String, cafeId: String) -> OnBehalfOf {
        OnBehalfOf(role: role, name: name, cafeId: cafeId)
    }
}
