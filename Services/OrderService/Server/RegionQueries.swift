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
/// go to the instance that holds its location, as beacon-ingest's fixes do. A call blocks the
/// service's loop for at most the timeout, so the timeout is short; a call that times out answers
/// `client.timeout` and the next one dials afresh (the lazy pirate pattern). A shard that timed out
/// is not asked again for `retrySeconds` (a circuit breaker): at lunch rush with a region-monitor
/// down, App Clip orders are refused at once instead of each holding every other order for a second.
///
/// In deployed mode each socket is a CURVE client with order-service's own key (a `service`
/// caller, which region-monitor's op table admits), and an endpoint may name its server
/// (`region-monitor-s0@tcp://…`) so the server's key is found in the registry; without a name it
/// is "region-monitor".
public final class RegionClient: RegionQueries {
    private let clients: [RequestClient]
    private var breakers: [CircuitBreaker]
    private let clock: any WallClock

    /// Throws when, in deployed mode, an endpoint's server has no key in the registry.
    public init(context: Context, endpoints: [String], security: SocketSecurity, timeoutMilliseconds: Int32, retrySeconds: Double,
                clock: any WallClock) throws {
        precondition(!endpoints.isEmpty, "at least one region-monitor endpoint")
        clients = try endpoints.map {
            try security.requestClient(context: context, peer: $0, defaultServer: "region-monitor", timeoutMilliseconds: timeoutMilliseconds)
        }
        breakers = Array(repeating: CircuitBreaker(openSeconds: retrySeconds), count: endpoints.count)
        self.clock = clock
    }

    /// The cafés nearest the device, asked of its shard.
    public func nearest(deviceId: String) throws -> NearestAnswer {
        try call(deviceId) { try $0.call(Op.nearestGet, DeviceQuery(deviceId: deviceId), as: NearestAnswer.self) }
    }

    /// Whether the device was inside the café when its code was scanned, asked of its shard.
    public func confirm(_ request: ConfirmLocation) throws -> LocationConfirmation {
        // The shard is the device's: a request without one has no shard to ask.
        guard let deviceId = request.deviceId else { throw ServiceError(.invalidField, "missing field body.deviceId") }
        return try call(deviceId) { try $0.call(Op.locationConfirm, request, as: LocationConfirmation.self) }
    }

    /// One call to the device's shard, through that shard's breaker. An error reply is an answer;
    /// only silence (or a transport failure) opens the breaker.
    private func call<T>(_ deviceId: String, _ body: (RequestClient) throws -> T) throws -> T {
        let shard = Topic.shard(of: deviceId, count: clients.count)
        let now = clock.now()
        if let until = breakers[shard].refusesUntil(at: now) {
            throw ServiceError(.clientTimeout, "region-monitor (shard \(shard)) did not answer lately; not asked again before \(until)")
        }
        do {
            let answer = try body(clients[shard])
            breakers[shard].answered()
            return answer
        } catch {
            if let refusal = error as? ServiceError, refusal.code != ErrorCode.clientTimeout.rawValue {
                breakers[shard].answered()
            } else {
                breakers[shard].failed(at: clock.now())
            }
            throw error
        }
    }

    deinit { clients.forEach { $0.close() } }
}
