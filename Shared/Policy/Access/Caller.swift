import Messages

/// Who sent a request, as its connection proved it: in deployed mode the principal whose CURVE key
/// the ZAP handler accepted (its User-Id), in plain mode the developer on loopback, who may do
/// anything (today's development behaviour; plain mode binds only loopback).
///
/// Handlers ask the caller, never the body, who is acting: `actingUser`/`actingDevice` fill a
/// left-out identity from a phone's key and refuse one that names somebody else; `requireCafe`
/// keeps a kiosk or kitchen to its café; `requireOwner` keeps a phone to its own orders and data.
public struct Caller: Sendable, Equatable {
    /// nil for the plain-mode developer.
    public let principal: Principal?
    /// The connection's own principal when the request acts on behalf of `principal` (the HTTP
    /// edge's key, or nil for the plain-mode developer); nil when the connection is `principal` itself.
    public let via: Principal?
    /// Whether the request names an on-behalf-of principal (`via` is nil for the developer's).
    public let onBehalf: Bool

    public init(principal: Principal?) {
        self.init(principal: principal, via: nil, onBehalf: false)
    }

    init(principal: Principal?, via: Principal?, onBehalf: Bool) {
        self.principal = principal
        self.via = via
        self.onBehalf = onBehalf
    }

    /// The plain-mode caller: trusted with every op, as on a developer's loopback.
    public static let developer = Caller(principal: nil)

    public var role: Role? { principal?.role }
    /// The name logs and refusals use.
    public var name: String { principal?.name ?? "developer" }
    public var isDeveloper: Bool { principal == nil }

    /// The refusal every scope check answers with.
    public func forbidden(_ what: String) -> ServiceError {
        ServiceError(.forbidden, "\(name) (\(role?.rawValue ?? "developer")) may not \(what)")
    }

    /// The user a request acts as. A phone acts only as its own user: a body naming another is
    /// refused, a body naming none takes the phone's. Other callers: the body's (which may be nil).
    public func actingUser(_ claimed: String?, field: String = "userId") throws(ServiceError) -> String? {
        guard let principal, principal.role == .phone else { return claimed }
        if let claimed, claimed != principal.userId {
            throw forbidden("act as user \(Quoting.quoted(claimed)) (\(field)); this key acts as \(Quoting.quoted(principal.userId ?? ""))")
        }
        return principal.userId
    }

    /// The device a request acts as; the same rule as `actingUser`, for the phone's device.
    public func actingDevice(_ claimed: String?, field: String = "deviceId") throws(ServiceError) -> String? {
        guard let principal, principal.role == .phone else { return claimed }
        if let claimed, claimed != principal.deviceId {
            throw forbidden("act for device \(Quoting.quoted(claimed)) (\(field)); this key acts for \(Quoting.quoted(principal.deviceId ?? ""))")
        }
        return principal.deviceId
    }

    /// `actingUser` for an op that needs a user: the phone's own (the body may leave it out), or
    /// for any other caller the body's. Neither gives one: `request.invalidField`, as a missing
    /// field would have been, so a caller without a key's identity learns which field it must send.
    public func actingUser(required claimed: String?, field: String = "userId") throws(ServiceError) -> String {
        guard let user = try actingUser(claimed, field: field) else { throw missing(field, what: "user") }
        return user
    }

    /// `actingDevice` for an op that needs a device; the same rule as `actingUser(required:)`.
    public func actingDevice(required claimed: String?, field: String = "deviceId") throws(ServiceError) -> String {
        guard let device = try actingDevice(claimed, field: field) else { throw missing(field, what: "device") }
        return device
    }

    /// The refusal of a body that leaves out an identity nothing else supplies.
    private func missing(_ field: String, what: String) -> ServiceError {
        guard principal?.role == .phone else { return ServiceError(.invalidField, "missing field body.\(field)") }
        // A guest phone (an App Clip session) has a device and no user, and may name no other.
        return ServiceError(.invalidField, "missing field body.\(field): \(name) acts for no \(what) (a guest), and this op needs one")
    }

    /// Refuses a kiosk or kitchen acting at a café that is not its own. Other roles pass.
    public func requireCafe(_ cafeId: String, _ what: @autoclosure () -> String) throws(ServiceError) {
        guard let principal, principal.role == .kiosk || principal.role == .kitchen else { return }
        if principal.cafeId != cafeId {
            throw forbidden("\(what()) at café \(Quoting.quoted(cafeId)); this key belongs to café \(Quoting.quoted(principal.cafeId ?? ""))")
        }
    }

    /// Refuses a phone reaching data that belongs to another user or device (an order, an
    /// inbox, a reminder). Pass what the stored data belongs to; nil means "not recorded" and is
    /// refused for a phone. Other roles pass (their limits are the op table and `requireCafe`).
    public func requireOwner(user: String? = nil, device: String? = nil, _ what: @autoclosure () -> String) throws(ServiceError) {
        guard let principal, principal.role == .phone else { return }
        let userMatches = user.map { $0 == principal.userId }
        let deviceMatches = device.map { $0 == principal.deviceId }
        // Owned when whichever of user and device is recorded names this phone.
        if userMatches == true || deviceMatches == true { return }
        throw forbidden(what())
    }
}
