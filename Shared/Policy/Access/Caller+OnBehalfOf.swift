import Messages

/// On-behalf-of principals (issue 26): the HTTP edge authenticates a session and forwards each of
/// its requests over the edge's own CURVE key, naming the session's principal in `onBehalfOf`.
extension Caller {
    /// The roles a session at the edge may have; the edge acts for no service, gateway or operator.
    public static let onBehalfOfRoles: Set<Role> = [.phone, .kiosk, .kitchen]

    /// Who a request acts as: this connection's caller when the request names nobody; the named
    /// principal when it does and this connection is an `edge` key (or the plain-mode developer,
    /// who may do anything and so only narrows itself). Any other key naming a principal is refused
    /// with `auth.forbidden`, whatever the principal: it could otherwise act as anybody.
    ///
    /// The principal is checked as the key registry checks a key's scope: a phone has a device (and
    /// a user, except an App Clip guest) and no café; a kiosk or kitchen a café and nothing else.
    /// Every value is bounded (1–64 characters of `A–Z a–z 0–9 - _`, a name also `.`).
    public func acting(onBehalfOf claimed: OnBehalfOf?) throws(ServiceError) -> Caller {
        guard let claimed else { return self }
        if let principal, principal.role != .edge {
            throw forbidden("act on behalf of \(Quoting.quoted(claimed.name)): only the HTTP edge's key (role edge) names the principal it acts for")
        }
        let principal = try Self.principal(claimed, key: principal?.publicKey ?? "")
        return Caller(principal: principal, via: self.principal, onBehalf: true)
    }

    /// The principal `claimed` names, or `request.invalidField` saying which field is wrong.
    static func principal(_ claimed: OnBehalfOf, key: String) throws(ServiceError) -> Principal {
        func invalid(_ message: String) -> ServiceError { ServiceError(.invalidField, "onBehalfOf: \(message)") }
        guard let role = Role(rawValue: claimed.role), onBehalfOfRoles.contains(role) else {
            throw invalid("role must be phone, kiosk or kitchen, not \(Quoting.quoted(claimed.role))")
        }
        guard TextRules.isToken(claimed.name, max: 64, allowingDots: true) else {
            throw invalid("name must be 1–64 characters of A–Z, a–z, 0–9, ., - and _")
        }
        for (field, value) in [("userId", claimed.userId), ("deviceId", claimed.deviceId), ("cafeId", claimed.cafeId)] {
            if let value, !TextRules.isToken(value, max: 64) { throw invalid("\(field) must be 1–64 characters of A–Z, a–z, 0–9, - and _") }
        }
        switch role {
        case .phone:
            guard claimed.deviceId != nil, claimed.cafeId == nil else { throw invalid("a phone has a deviceId (and a userId unless it is an App Clip guest) and no cafeId") }
        default:
            guard claimed.cafeId != nil, claimed.userId == nil, claimed.deviceId == nil else { throw invalid("a \(role.rawValue) has a cafeId and nothing else") }
        }
        return Principal(name: claimed.name, role: role, publicKey: key, deviceId: claimed.deviceId, userId: claimed.userId, cafeId: claimed.cafeId)
    }
}
