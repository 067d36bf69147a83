import Messages
import RegionMonitorCore
import ServiceRuntime

/// The location requests: `nearest.get` (the nearest café and cafés by distance, for menus) and
/// `location.confirm` (App Clip codes). The engine answers; the service counts and logs.
extension RegionService {
    func routeLocationOps() {
        host.router.on(Op.nearestGet, DeviceQuery.self) { [unowned self] query, _ in
            try engine.nearestAnswer(deviceId: query.deviceId, catalog: catalog, now: host.clock.now())
        }
        host.router.on(Op.locationConfirm, ConfirmLocation.self) { [unowned self] request, _ in
            try confirm(request)
        }
    }

    /// "Was this code acquired inside region R?" yes / no / disallowed, never a position.
    func confirm(_ request: ConfirmLocation) throws -> LocationConfirmation {
        let answer = try engine.confirmation(request, catalog: catalog, now: host.clock.now())
        confirmations += 1
        host.logger.info("location confirmed", ["device.id": request.deviceId, "code": String(request.code.prefix(200)),
                                                "result": answer.result.rawValue, "reason": answer.reason?.rawValue ?? ""])
        return answer
    }
}
