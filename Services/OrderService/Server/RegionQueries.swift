import Messages
import ServiceRuntime
import ZeroMQ

/// What order-service asks region-monitor: the cafés nearest a device (ids only, never
/// coordinates) for the menu, and whether an App Clip's code was scanned inside a café.
public protocol RegionQueries: AnyObject {
    func nearest(deviceId: String) throws -> NearestAnswer
    func confirm(_ request: ConfirmLocation) throws -> LocationConfirmation
}

/// region-monitor's request sockets, one per device shard (in shard order): a device's questions
/// go to the instance that holds its location, as beacon-ingest's fixes do. Calls block the
/// service's loop for at most the timeout, so the timeout is short; a call that times out answers
/// `client.timeout` and the next one dials afresh (the lazy pirate pattern).
public final class RegionClient: RegionQueries {
    private let clients: [RequestClient]

    public init(context: Context, endpoints: [String], timeoutMilliseconds: Int32) {
        precondition(!endpoints.isEmpty, "at least one region-monitor endpoint")
        clients = endpoints.map { RequestClient(context: context, endpoint: $0, timeoutMilliseconds: timeoutMilliseconds) }
    }

    private func client(for deviceId: String) -> RequestClient {
        clients[Topic.shard(of: deviceId, count: clients.count)]
    }

    public func nearest(deviceId: String) throws -> NearestAnswer {
        try client(for: deviceId).call(Op.nearestGet, DeviceQuery(deviceId: deviceId), as: NearestAnswer.self)
    }

    public func confirm(_ request: ConfirmLocation) throws -> LocationConfirmation {
        try client(for: request.deviceId).call(Op.locationConfirm, request, as: LocationConfirmation.self)
    }

    deinit { clients.forEach { $0.close() } }
}
