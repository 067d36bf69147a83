import Messages
import ServiceRuntime
import ZeroMQ

/// What order-service asks region-monitor: the cafés nearest a device (ids only, never
/// coordinates) for the menu, and whether an App Clip's code was scanned inside a café.
public protocol RegionQueries: AnyObject {
    func nearest(deviceId: String) throws -> NearestAnswer
    func confirm(_ request: ConfirmLocation) throws -> LocationConfirmation
}

/// region-monitor's request socket. Calls block the service's loop for at most the timeout, so
/// the timeout is short; a call that times out answers `client.timeout` and the next one dials
/// afresh (the lazy pirate pattern).
public final class RegionClient: RegionQueries {
    private let client: RequestClient

    public init(context: Context, endpoint: String, timeoutMilliseconds: Int32) {
        client = RequestClient(context: context, endpoint: endpoint, timeoutMilliseconds: timeoutMilliseconds)
    }

    public func nearest(deviceId: String) throws -> NearestAnswer {
        try client.call(Op.nearestGet, DeviceQuery(deviceId: deviceId), as: NearestAnswer.self)
    }

    public func confirm(_ request: ConfirmLocation) throws -> LocationConfirmation {
        try client.call(Op.locationConfirm, request, as: LocationConfirmation.self)
    }

    deinit { client.close() }
}
