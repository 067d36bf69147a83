import Messages

/// Rules for names and conditions sent to the request socket.
public enum ConditionRules {
    /// Monitor names sit in topics (`region.event.<monitor>.`): no dots.
    public static func validateMonitorName(_ name: String) throws(ServiceError) {
        try TextRules.requireToken(name, field: "monitor")
    }

    /// Identifiers may hold dots (`caffe-macs.area`).
    public static func validateIdentifier(_ identifier: String) throws(ServiceError) {
        try TextRules.requireToken(identifier, field: "identifier", allowingDots: true)
    }

    /// The name of the client holding a monitor; dots allowed.
    public static func validateOwner(_ owner: String) throws(ServiceError) {
        try TextRules.requireToken(owner, field: "owner", allowingDots: true)
    }

    /// Device ids sit in topics (`notify.delivery.<device>.`): no dots.
    public static func validateDeviceID(_ id: String) throws(ServiceError) {
        try TextRules.requireToken(id, field: "deviceId")
    }

    /// A condition's values, with the UUID made canonical (upper case).
    public static func validate(_ condition: Condition) throws(ServiceError) -> Condition {
        switch condition {
        case let .beacon(uuid, major, minor, exitTimeout):
            guard let canonical = TextRules.canonicalUUID(uuid) else {
                throw ServiceError(.invalidCondition, "uuid \"\(uuid.prefix(40))\" is not a UUID (8-4-4-4-12 hex digits)")
            }
            if let major, !(0...65535).contains(major) { throw ServiceError(.invalidCondition, "major \(major) is outside 0…65535") }
            if let minor, !(0...65535).contains(minor) { throw ServiceError(.invalidCondition, "minor \(minor) is outside 0…65535") }
            if minor != nil, major == nil { throw ServiceError(.invalidCondition, "a minor needs a major (uuid, uuid+major or uuid+major+minor)") }
            if let exitTimeout, !(exitTimeout.isFinite && exitTimeout > 0 && exitTimeout <= 86_400) {
                throw ServiceError(.invalidCondition, "exitTimeout \(exitTimeout) s must be more than 0 and at most 86400")
            }
            return .beacon(uuid: canonical, major: major, minor: minor, exitTimeout: exitTimeout)
        case let .circle(latitude, longitude, radius, hysteresis, dwell):
            guard latitude.isFinite, (-90...90).contains(latitude) else { throw ServiceError(.invalidCondition, "latitude \(latitude) is outside -90…90") }
            guard longitude.isFinite, (-180...180).contains(longitude) else { throw ServiceError(.invalidCondition, "longitude \(longitude) is outside -180…180") }
            guard radius.isFinite, radius >= 1, radius <= 100_000 else { throw ServiceError(.invalidCondition, "radius \(radius) m must be 1…100000") }
            if let hysteresis, !(hysteresis.isFinite && hysteresis >= 0 && hysteresis <= 10_000) {
                throw ServiceError(.invalidCondition, "hysteresis \(hysteresis) m must be 0…10000")
            }
            if let dwell, !(dwell.isFinite && dwell >= 0 && dwell <= 86_400) {
                throw ServiceError(.invalidCondition, "dwell \(dwell) s must be 0…86400")
            }
            return condition
        }
    }
}
