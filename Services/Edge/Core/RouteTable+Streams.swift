import Messages
import Policy

extension RouteTable {
    /// The id of the last event a client saw: an EventSource sends it when it reconnects, and the
    /// stream starts after it. Event ids are sequence numbers (at most 19 digits).
    static let lastEventId = Parameter("Last-Event-ID", in: .header, .string(maxBytes: 19), member: "lastEventId",
                                       summary: "resume after this event id (an EventSource sends the last id it saw when it reconnects); absent: every event so far")

    /// Live status over server-sent events, held by Pushpin. The order's stream is open to whoever
    /// may read the order (`order.get` decides, on behalf of the caller); a device's, to the phone
    /// it is.
    static let streams: [Route] = [
        Route(.get, "/v1/orders/{orderId}/events", .stream(.orderEvents), access: .roles([.phone, .kiosk, .kitchen]),
              summary: "The order's events as they happen (SSE, held open): placed, accepted, preparing, ready, picked up, cancelled",
              headers: [lastEventId], reply: "OrderEventStream"),
        Route(.get, "/v1/devices/{deviceId}/events", .stream(.deviceEvents), access: .roles([.phone]),
              summary: "The device's notifications as they are delivered (SSE, held open)", headers: [lastEventId], reply: "DeviceEventStream"),
    ]
}
