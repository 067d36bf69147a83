import Messages
import Policy
import RegionMonitorCore
import ServiceRuntime

/// The location requests: `nearest.get` (the nearest café and cafés by distance, for menus) and
/// `location.confirm` (App Clip codes). The engine answers; the service counts and logs.
///
/// Both say where a device is, so who may ask is narrow: a phone about its own device only;
/// among services only order-service (menus and App Clip orders), which asks for any device;
/// an operator about any device (read-only). The op table lets no other role in.
extension RegionService {
    /// The service that asks where devices are on their behalf.
    static let locationAsker = "order-service"

    func routeLocationOps() {
        router.on(Op.nearestGet, DeviceQuery.self) { [unowned self] query, caller in
            let deviceId = try Self.requireLocationAccess(caller, deviceId: query.deviceId, "ask for the nearest café")
            return try engine.nearestAnswer(deviceId: deviceId, catalog: catalog, now: clock.now())
        }
        router.on(Op.locationConfirm, ConfirmLocation.self) { [unowned self] body, caller in
            var request = body
            request.deviceId = try Self.requireLocationAccess(caller, deviceId: body.deviceId, "confirm where a code was acquired")
            return try confirm(request)
        }
    }

    /// The device asked about (a phone's own when the body leaves it out); refuses a phone asking
    /// about another device, and a service other than order-service.
    static func requireLocationAccess(_ caller: Caller, deviceId claimed: String?, _ what: String) throws(ServiceError) -> String {
        let deviceId = try caller.actingDevice(required: claimed)
        if let principal = caller.principal, principal.role == .service, principal.service != locationAsker {
            throw caller.forbidden("\(what) for device \(Quoting.quoted(deviceId)); among services only \(locationAsker) asks where devices are")
        }
        return deviceId
    }

    /// "Was this code acquired inside region R?" yes / no / disallowed, never a position.
    func confirm(_ request: ConfirmLocation) throws -> LocationConfirmation {
        let answer = try engine.confirmation(request, catalog: catalog, now: clock.now())
        confirmations += 1
        logger.info("location confirmed", ["device.id": request.deviceId ?? "", "code": String(request.code.prefix(200)),
                                                "result": answer.result.rawValue, "reason": answer.reason?.rawValue ?? ""])
        return answer
    }
}
