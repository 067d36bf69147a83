import Foundation
import Messages

/// A bus event as a stream shows it: the channel it goes to and the SSE event. Order events go
/// to their order's channel; a `notify.delivery` to its device's. Nothing else is streamed (an
/// undeliverable notification was never the device's to see). Neither carries coordinates: an
/// order event carries the order, a delivery the notification's text, and the data is exactly
/// that body.
public struct StreamEvent: Sendable, Equatable {
    public let channel: String
    public let event: ServerSentEvent

    /// What `envelope` is on a stream, or nil when it is not streamed.
    public static func of(_ envelope: Envelope) -> StreamEvent? {
        let id = envelope.seq
        switch envelope.body {
        case .order(let order) where envelope.stream == "order":
            return StreamEvent(channel: StreamChannel.order(order.order.orderId),
                               event: ServerSentEvent(id: id, event: envelope.type.rawValue, data: Array(Wire.encode(order))))
        case .notification(let notification) where envelope.type == .notifyDelivery && envelope.stream == "notify":
            return StreamEvent(channel: StreamChannel.device(notification.deviceId),
                               event: ServerSentEvent(id: id, event: envelope.type.rawValue, data: Array(Wire.encode(notification))))
        default:
            return nil
        }
    }
}
