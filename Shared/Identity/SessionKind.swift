/// What a bearer session lets its holder act as, and for how long it may last.
public enum SessionKind: String, Sendable, Hashable, CaseIterable {
    /// A signed-in person on a phone, from an OpenID Connect sign-in: a user, and the device
    /// once the app has registered one.
    case user
    /// An App Clip before sign-in: one device and no user. Its orders move to the account when
    /// the person signs in (`order.claim`).
    case guest
    /// A café's counter kiosk: a long-lived device token from `cafectl tokens issue`.
    case kiosk
    /// A café's kitchen tablet: a long-lived device token from `cafectl tokens issue`.
    case kitchen
    /// An operator's browser on the status page (issue 29): a token from `cafectl tokens issue`,
    /// no café. It opens the status page and nothing else: no route forwards an op for it.
    case `operator`

    /// Whether this is a long-lived device token an operator issues (and lists, and revokes).
    public var isDeviceToken: Bool { self == .kiosk || self == .kitchen || self == .operator }

    /// The lifetime a session gets when the caller names none, in seconds: 30 days for a user
    /// (a phone signs in again after a month), 8 hours for a guest (an App Clip's ephemeral
    /// location grant lasts as long), a year for a kiosk or kitchen tablet, 30 days for an operator's.
    public var defaultLifetime: Double {
        switch self {
        case .user, .operator: 30 * 86_400
        case .guest: 8 * 3_600
        case .kiosk, .kitchen: 365 * 86_400
        }
    }

    /// The lifetimes a caller may ask for, in seconds: at least a minute, at most 90 days for a
    /// user or an operator, a day for a guest, 400 days for a kiosk or kitchen token.
    public var lifetimes: ClosedRange<Double> {
        switch self {
        case .user, .operator: 60...(90 * 86_400)
        case .guest: 60...86_400
        case .kiosk, .kitchen: 60...(400 * 86_400)
        }
    }
}
