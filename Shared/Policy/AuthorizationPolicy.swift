import Messages

/// Core Location's authorization rules for accepting a device's locations and sightings.
///
/// `always`: any time. `whenInUse`: only while the app is in the foreground. `allowOnce` (the
/// one-time grant, also what a Location Button tap gives): only until the app next goes to the
/// background — iOS then resets it, so the platform drops what it holds. Anything else: refused,
/// and every piece of location state for the device dropped.
public enum AuthorizationPolicy {
    /// Why a location or sighting from a device in this state is refused; nil when accepted.
    public static func refusal(authorization: Authorization, foreground: Bool) -> ServiceError? {
        switch authorization {
        case .always:
            return nil
        case .whenInUse:
            return foreground ? nil : ServiceError(.notInForeground, "whenInUse authorization accepts locations only while the app is in the foreground")
        case .allowOnce:
            return foreground ? nil : ServiceError(.oneTimeGrantExpired, "the one-time grant ended when the app went to the background")
        case .denied:
            return ServiceError(.authorizationDenied, "the user denied location access; no location data is accepted or kept")
        case .restricted:
            return ServiceError(.authorizationRestricted, "location access is restricted on this device; no location data is accepted or kept")
        case .notDetermined:
            return ServiceError(.authorizationNotDetermined, "the user has not been asked for location access yet")
        }
    }

    /// Whether the platform must drop every piece of location state it holds for the device.
    /// `whenInUse` in the background keeps what it has (the grant stands; only new data is refused).
    public static func requiresPurge(authorization: Authorization, foreground: Bool) -> Bool {
        switch authorization {
        case .always, .whenInUse: false
        case .allowOnce: !foreground
        case .denied, .restricted, .notDetermined: true
        }
    }
}
