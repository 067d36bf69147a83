import Messages

/// A place in a pickup window: held for a while after `window.reserve`, then used by an order or
/// released by its cancellation.
public struct ReservationRecord: Sendable, Equatable {
    /// Where a place stands: held for an order, used by one, or given back by a cancellation.
    public enum Status: String, Sendable {
        case held, used, released
    }

    public var reservationId: String
    public var cafeId: String
    public var windowStart: Timestamp
    /// The signed-in user it is held for; nil for a kiosk's or a guest's place (anyone's who has its id).
    public var userId: String?
    public var status: Status
    /// A held place no order used by then goes back to its window.
    public var expiresAt: Timestamp
    public var orderId: String?

    /// A reservation as stored.
    public init(reservationId: String, cafeId: String, windowStart: Timestamp, userId: String?, status: Status, expiresAt: Timestamp,
                orderId: String? = nil) {
        self.reservationId = reservationId
        self.cafeId = cafeId
        self.windowStart = windowStart
        self.userId = userId
        self.status = status
        self.expiresAt = expiresAt
        self.orderId = orderId
    }
}
