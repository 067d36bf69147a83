import Campus
import Messages

/// What the request socket may learn of a device's location: the nearest café and cafés by
/// distance for the menu, and App Clip location confirmation. Never a coordinate: a yes/no, a
/// reason, or an ordering of place ids.
extension RegionEngine {
    /// `nearest.get`: the device's nearest beacon with its café and station, or while the evidence
    /// names none the cafés it may be at, and the campus's cafés by distance from its latest fresh
    /// fix. Nothing for a device whose authorization is withdrawn.
    public func nearestAnswer(deviceId: String, catalog: CampusCatalog, now: Timestamp) throws(ServiceError) -> NearestAnswer {
        try ConditionRules.validateDeviceID(deviceId)
        let allowed = mayLocate(deviceId)
        let nearest = allowed ? nearestBeacon(deviceId: deviceId) : nil
        let cafe = nearest?.beacon.flatMap { catalog.cafe(major: $0.major) }
        let station = nearest?.beacon.flatMap { beacon in cafe?.station(minor: beacon.minor) }
        let places = catalog.cafes.map { (id: $0.id, latitude: $0.latitude, longitude: $0.longitude) }
        var candidates: [String] = []
        if allowed, nearest == nil {
            for beacon in nearestCandidates(deviceId: deviceId, now: now) {
                if let id = catalog.cafe(major: beacon.major)?.id, !candidates.contains(id) { candidates.append(id) }
            }
        }
        return NearestAnswer(deviceId: deviceId, beacon: nearest?.beacon, proximity: nearest?.proximity, cafeId: cafe?.id, stationId: station?.id,
                             cafesByDistance: allowed ? placesByDistance(deviceId: deviceId, places: places, now: now) : [],
                             date: nearest?.date ?? now, candidates: candidates)
    }

    /// `location.confirm`: "was this code acquired inside region R?" — a café's confirmation
    /// circle or an explicit region of at most 500 m — yes / no / disallowed with the reason
    /// (authorization withdrawn, approximate location only, no fresh or fine enough fix).
    public func confirmation(_ request: ConfirmLocation, catalog: CampusCatalog, now: Timestamp) throws(ServiceError) -> LocationConfirmation {
        // The service filled a phone's left-out id from its key; still none is a missing field.
        guard let deviceId = request.deviceId else { throw ServiceError(.invalidField, "missing field body.deviceId") }
        try ConditionRules.validateDeviceID(deviceId)
        guard !request.code.isEmpty, request.code.utf8.count <= 2048 else { throw ServiceError(.invalidField, "code must be the code's URL, 1–2048 bytes") }
        let region: ConfirmRegion
        switch (request.cafeId, request.region) {
        case (let id?, nil):
            guard let cafe = catalog.cafe(id) else { throw ServiceError(.unknownCafe, "no café \"\(id.prefix(64))\" on this campus") }
            region = ConfirmRegion(latitude: cafe.latitude, longitude: cafe.longitude, radius: cafe.confirmationRadius)
        case (nil, let given?):
            region = given
        default:
            throw ServiceError(.invalidField, "give either cafeId or region, not both or neither")
        }
        guard region.latitude.isFinite, (-90...90).contains(region.latitude), region.longitude.isFinite, (-180...180).contains(region.longitude) else {
            throw ServiceError(.invalidField, "region center must be a latitude in -90…90 and a longitude in -180…180")
        }
        guard region.radius.isFinite, region.radius > 0 else { throw ServiceError(.invalidField, "region radius must be more than 0 m") }
        guard region.radius <= 500 else {
            // Whole metres while they fit an Int: a client may send 1e300 (finite, so not refused above).
            let shown = region.radius < 1e15 ? "\(Int(region.radius))" : "\(region.radius)"
            throw ServiceError(.regionTooLarge, "a confirmation region is at most 500 m across its radius, not \(shown) m")
        }
        guard request.acquiredAt.seconds(since: now) <= 60 else { throw ServiceError(.invalidField, "acquiredAt is in the future") }

        if !mayLocate(deviceId) {
            return LocationConfirmation(deviceId: deviceId, code: request.code, result: .disallowed, reason: .authorizationDenied)
        }
        if authorizations.isApproximate(deviceId) {
            return LocationConfirmation(deviceId: deviceId, code: request.code, result: .disallowed, reason: .approximateOnly)
        }
        let (result, reason) = confirm(deviceId: deviceId, latitude: region.latitude, longitude: region.longitude,
                                       radius: region.radius, acquiredAt: request.acquiredAt)
        return LocationConfirmation(deviceId: deviceId, code: request.code, result: result, reason: reason)
    }

    /// "Was the device inside this circle when it acquired the code?" From the precise fix
    /// nearest in time to `acquiredAt`, within the confirmation window; never a position.
    /// Authorization is the caller's to check first.
    public func confirm(deviceId: String, latitude: Double, longitude: Double, radius: Double,
                        acquiredAt: Timestamp) -> (result: LocationConfirmation.Result, reason: LocationConfirmation.Reason?) {
        let window = Self.milliseconds(settings.confirmWindow)
        let t = acquiredAt.milliseconds
        let candidates = devices.slot(deviceId).map { devices[$0].fixes.filter { abs($0.at - t) <= window } } ?? []
        guard !candidates.isEmpty else { return (.disallowed, .noFreshFix) }
        guard let fix = candidates.filter(\.precise).min(by: { abs($0.at - t) < abs($1.at - t) }) else { return (.disallowed, .approximateOnly) }
        guard fix.accuracy <= radius else { return (.disallowed, .fixTooCoarse) }
        return Geodesy.distance(fix.latitude, fix.longitude, latitude, longitude) <= radius ? (.yes, nil) : (.no, nil)
    }

    /// Place ids ordered by distance from the device's latest fix, if it is fresh; empty otherwise.
    public func placesByDistance(deviceId: String, places: [(id: String, latitude: Double, longitude: Double)], now: Timestamp) -> [String] {
        guard let slot = devices.slot(deviceId), let fix = devices[slot].fixes.last,
              now.milliseconds - fix.at <= Self.milliseconds(settings.fixFreshness)
        else { return [] }
        var ranked: [(id: String, distance: Double)] = []
        for place in places {
            ranked.append((place.id, Geodesy.distance(fix.latitude, fix.longitude, place.latitude, place.longitude)))
        }
        ranked.sort { a, b in a.distance < b.distance || (a.distance == b.distance && a.id < b.id) }
        return ranked.map(\.id)
    }
}
