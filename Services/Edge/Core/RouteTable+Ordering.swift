import Messages
import Policy

extension RouteTable {
    /// Menu, windows, reservations and orders: phones, App Clips and kiosks.
    static let ordering: [Route] = [
        Route(.get, "/v1/menu", .op(Op.menuGet), access: .roles([.phone, .kiosk]), summary: "The menu for where the user is now (a kiosk: its café's)",
              query: [requiredLocale, .query("userId", .string(maxBytes: 64), summary: "the user (a phone's own)"),
                      .query("deviceId", .string(maxBytes: 64), summary: "the device (a phone's own)")],
              reply: "MenuReply"),
        Route(.get, "/v1/cafes/{cafeId}/windows", .op(Op.windowsList), access: .roles([.phone, .kiosk]), summary: "The café's next pickup windows",
              query: [requiredLocale, .query("count", .integer(1...96), summary: "how many (default 8)")], reply: "WindowsReply"),
        Route(.post, "/v1/cafes/{cafeId}/reservations", .op(Op.windowReserve), access: .roles([.phone, .kiosk]),
              summary: "Hold a place in a pickup window until an order uses it", body: .object(schema: "ReserveRequest", required: true),
              reply: "ReservationView"),
        Route(.post, "/v1/orders", .op(Op.orderPlace), access: .roles([.phone]), summary: "Place an app or App Clip order against a reservation",
              headers: [idempotencyKey], body: .object(schema: "PlaceOrderRequest", required: true), reply: "OrderView"),
        Route(.post, "/v1/cafes/{cafeId}/guest-orders", .op(Op.orderPlace), access: .roles([.kiosk]), summary: "Place a kiosk guest order at the kiosk's café",
              headers: [idempotencyKey], body: .object(schema: "PlaceOrderRequest", required: true), constants: [("channel", .string("kiosk"))],
              reply: "OrderView"),
        Route(.get, "/v1/orders/{orderId}", .op(Op.orderGet), access: .roles([.phone, .kiosk, .kitchen]), summary: "An order, formatted for the locale",
              query: [locale], reply: "OrderView"),
        Route(.get, "/v1/orders/{orderId}/history", .op(Op.orderHistory), access: .roles([.phone]), summary: "The order's audit trail, oldest first",
              query: [locale], reply: "OrderHistory"),
        Route(.post, "/v1/orders/{orderId}/cancel", .op(Op.orderCancel), access: .roles([.phone, .kiosk]),
              summary: "Cancel as the customer (a kiosk: a guest order at its café) while placed or accepted",
              body: .object(schema: "CancelOrderRequest", required: false), constants: [("by", .string("customer"))], reply: "OrderView"),
        Route(.post, "/v1/orders/{orderId}/pickup", .op(Op.orderPickup), access: .roles([.kiosk, .kitchen]), summary: "Hand a ready order over",
              query: [locale], reply: "OrderView"),
    ]
}
