/// What a key may do on the campus: one role per key, with a scope (DESIGN.md §8).
public enum Role: String, Sendable, Codable, CaseIterable, Hashable {
    /// A platform process (bus, beacon-ingest, …): publishes with its own source, subscribes, replays.
    case service
    /// One device of one user: acts only as that device and user.
    case phone
    /// A counter kiosk of one café: guest orders at that café.
    case kiosk
    /// A beacon gateway: reports sightings for any device.
    case gateway
    /// The kitchen of one café: its tickets and kitchen cancels.
    case kitchen
    /// A person running the platform: health, monitor administration, reading anything, tailing the
    /// bus; never acting as a user.
    case `operator`
    /// The HTTP edge's own key (issue 26): it acts on behalf of the phone, App Clip guest, kiosk or
    /// kitchen tablet whose session it authenticated, named in each request's `onBehalfOf`, and is
    /// then held to that principal's scope. As itself it may only ask for health.
    case edge
}

/// Who holds a key: the registry's entry for one public key (name, role and scope).
public struct Principal: Sendable, Equatable, Hashable {
    /// The principal's name: its ZAP User-Id, and for a service its instance name (envelope source).
    public var name: String
    public var role: Role
    /// The CURVE public key (Z85, 40 characters).
    public var publicKey: String
    /// For `service`: which service this instance runs ("order-service", "region-monitor", …).
    public var service: String?
    /// For `phone`: the one device and user it acts as.
    public var deviceId: String?
    public var userId: String?
    /// For `kiosk` and `kitchen`: the one café.
    public var cafeId: String?

    public init(name: String, role: Role, publicKey: String, service: String? = nil, deviceId: String? = nil, userId: String? = nil, cafeId: String? = nil) {
        self.name = name
        self.role = role
        self.publicKey = publicKey
        self.service = service
        self.deviceId = deviceId
        self.userId = userId
        self.cafeId = cafeId
    }

    /// The scope as the registry writes it: `service=…`, `device=… user=…`, `cafe=…`.
    public var scopeFields: [String] {
        var fields: [String] = []
        if let service { fields.append("service=\(service)") }
        if let deviceId { fields.append("device=\(deviceId)") }
        if let userId { fields.append("user=\(userId)") }
        if let cafeId { fields.append("cafe=\(cafeId)") }
        return fields
    }

    /// One line for logs and `cafectl keys list`: "kitchen-macs kitchen cafe=macs".
    public var summary: String { ([name, role.rawValue] + scopeFields).joined(separator: " ") }
}
