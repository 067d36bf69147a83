import Messages

/// Whether the kitchen can trust its queue: the bus link is up when something came through the
/// bus lately (at least the kitchen's own heartbeat comes back every second); order-service is up
/// when it was heard lately (its heartbeat or an order event) and the kitchen's cursor has reached
/// the last seq it announced. A screen shows this, so an empty queue
/// is never mistaken for a quiet kitchen.
public struct LinkMonitor: Sendable, Equatable {
    public let startedAt: Timestamp
    public private(set) var lastBusTraffic: Timestamp?
    public private(set) var lastOrderHeard: Timestamp?
    /// order-service's last announced seq of the `order` stream.
    public private(set) var orderLastSeq: UInt64 = 0

    public init(startedAt: Timestamp) { self.startedAt = startedAt }

    /// A message arrived through the bus: our own heartbeat, or anyone's message.
    public mutating func busTraffic(at time: Timestamp) { lastBusTraffic = time }

    /// order-service's heartbeat arrived, announcing its last `order` seq.
    public mutating func orderHeartbeat(at time: Timestamp, lastSeq: UInt64) {
        lastOrderHeard = time
        orderLastSeq = lastSeq
    }

    /// An order event from order-service arrived: it is alive, and its stream reaches at least `seq`.
    public mutating func orderEvent(at time: Timestamp, seq: UInt64) {
        lastOrderHeard = time
        orderLastSeq = max(orderLastSeq, seq)
    }

    /// The links at `now`, given the kitchen's cursor on order-service's `order` stream.
    public func status(at now: Timestamp, cursor: UInt64, settings: KitchenSettings) -> KitchenLink {
        func state(_ last: Timestamp?) -> LinkState {
            guard let last else { return now.seconds(since: startedAt) < settings.linkTimeoutSeconds ? .connecting : .down }
            return now.seconds(since: last) <= settings.linkTimeoutSeconds ? .up : .down
        }
        let bus = state(lastBusTraffic)
        var orders = bus == .down ? .down : state(lastOrderHeard)
        if orders == .up && cursor < orderLastSeq { orders = .catchingUp }
        var message: String
        switch (bus, orders) {
        case (.up, .up): message = ""
        case (.down, _): message = "NO LINK TO THE BUS: tickets may be missing"
        case (.connecting, _): message = "connecting to the bus…"
        case (_, .down): message = "NO LINK TO ORDER-SERVICE: new orders are not arriving"
        case (_, .catchingUp): message = "catching up with order-service (\(cursor)/\(orderLastSeq))…"
        default: message = "waiting for order-service…"
        }
        if let last = (bus == .down ? lastBusTraffic : orders == .down ? lastOrderHeard : nil) {
            message += " (last heard \(Int(now.seconds(since: last))) s ago)"
        }
        return KitchenLink(bus: bus, orderService: orders, message: message)
    }
}
