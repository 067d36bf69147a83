import Messages
import Policy

/// What each device's location authorization allows. A withdrawn one (the policy's
/// `requiresPurge`) refuses the device's sightings and fixes, even one that raced the status
/// change, until it is granted again; it outlives the device's state, which the purge drops.
/// Approximate-only devices cannot confirm a location.
final class LocationAuthorizations {
    private var withdrawn: Set<String> = []
    private var approximate: Set<String> = []

    /// Whether a device's location may be used: not while its authorization is withdrawn.
    func mayLocate(_ deviceId: String) -> Bool { !withdrawn.contains(deviceId) }

    /// Whether input from a device is refused. The hot path's check: while no authorization is
    /// withdrawn it costs no lookup.
    func refuses(_ deviceId: String) -> Bool { !withdrawn.isEmpty && withdrawn.contains(deviceId) }

    /// Whether the device's last status said the user allows approximate location only.
    func isApproximate(_ deviceId: String) -> Bool { approximate.contains(deviceId) }

    /// A device's status as the bus announces it. Returns whether it withdraws the
    /// authorization (the caller then purges the device).
    func apply(_ status: DeviceStatus) -> Bool {
        if status.precise {
            approximate.remove(status.deviceId)
        } else {
            approximate.insert(status.deviceId)
        }
        guard AuthorizationPolicy.requiresPurge(authorization: status.authorization, foreground: status.foreground) else {
            withdrawn.remove(status.deviceId)
            return false
        }
        withdrawn.insert(status.deviceId)
        return true
    }

    /// A device's last status from storage. An authorization storage cannot read counts as granted.
    func restore(deviceId: String, authorization: Authorization?, foreground: Bool, precise: Bool) {
        if let authorization, AuthorizationPolicy.requiresPurge(authorization: authorization, foreground: foreground) {
            withdrawn.insert(deviceId)
        }
        if !precise { approximate.insert(deviceId) }
    }
}
