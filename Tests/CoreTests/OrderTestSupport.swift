import Campus
import Messages
import OrderCore

/// Orders and requests for OrderCore's decision tests: plain values, no store.
enum OrderFixtures {
    static let macsCode = "https://clip.campus.example/caffe-macs/counter"
    static let token = "tok_4242424242424242"

    /// An order at Caffè Macs whose 10-minute pickup window starts at `t0`.
    static func order(_ state: OrderState, id: String = "ord-1", channel: OrderChannel = .app, userId: String? = "ann", deviceId: String? = "phone-1",
                      customerHere: Bool = false) -> OrderSnapshot {
        OrderSnapshot(orderId: id, cafeId: "caffe-macs", cafeName: "Caffè Macs", timeZone: "America/Los_Angeles", currency: "USD", channel: channel,
                      userId: userId, deviceId: deviceId, state: state, lines: [], total: 1095, pickupStart: t0, pickupEnd: .at(600),
                      placedAt: .at(-1800), customerHere: customerHere)
    }

    /// A place held at Caffè Macs in the window at `t0`, until `.at(-600)`.
    static func reservation(_ status: ReservationRecord.Status = .held, cafeId: String = "caffe-macs", userId: String? = nil) -> ReservationRecord {
        ReservationRecord(reservationId: "res-1", cafeId: cafeId, windowStart: t0, userId: userId, status: status, expiresAt: .at(-600))
    }

    static func place(_ channel: OrderChannel, userId: String? = nil, deviceId: String? = nil, token: String? = nil, clip: ClipLaunch? = nil,
                      cafeId: String = "caffe-macs", locale: String = "en_US", items: [OrderItemRequest] = [OrderItemRequest(itemId: "burger", quantity: 2)]) -> PlaceOrderRequest {
        PlaceOrderRequest(idempotencyKey: "key-00000001", channel: channel, userId: userId, deviceId: deviceId, cafeId: cafeId, reservationId: "res-1",
                          items: items, paymentToken: token, locale: locale, clip: clip)
    }

    static func clip(_ url: String = macsCode, _ invocation: ClipInvocation = .appClipCode, acquiredAt: Timestamp = .at(-1200)) -> ClipLaunch {
        ClipLaunch(url: url, invocation: invocation, acquiredAt: acquiredAt)
    }
}

/// Runs `body` and returns the `ServiceError` it throws (nil when it returns), for the refusals
/// whose message or details matter.
func refusal<T>(of body: () throws(ServiceError) -> T) -> ServiceError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
