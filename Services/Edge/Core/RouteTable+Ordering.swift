import Messages
import Policy

extension RouteTable {
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

    static let kitchen: [Route] = [
        Route(.get, "/v1/kitchen/tickets", .op(Op.kdsTickets), access: .roles([.kitchen]), summary: "The station screen's tickets, in screen order",
              query: [cafeFilter, stationFilter, includeDone], reply: "TicketsReply"),
        Route(.get, "/v1/kitchen/orders", .op(Op.kdsOrders), access: .roles([.kitchen]), summary: "The expediter's view: whole orders with each station's ticket",
              query: [cafeFilter, includeDone], reply: "OrdersReply"),
        Route(.get, "/v1/kitchen/counts", .op(Op.kdsCounts), access: .roles([.kitchen]), summary: "All-day counts of what open tickets still need",
              query: [cafeFilter, stationFilter], reply: "CountsReply"),
        Route(.post, "/v1/kitchen/tickets/{ticketId}/start", .op(Op.kdsStart), access: .roles([.kitchen]), summary: "Start a ticket", reply: "TicketView"),
        Route(.post, "/v1/kitchen/tickets/{ticketId}/bump", .op(Op.kdsBump), access: .roles([.kitchen]), summary: "Bump a ticket: ready", reply: "TicketView"),
        Route(.post, "/v1/kitchen/tickets/{ticketId}/recall", .op(Op.kdsRecall), access: .roles([.kitchen]),
              summary: "Recall a bumped ticket within the recall window", reply: "TicketView"),
        Route(.put, "/v1/kitchen/orders/{orderId}/rush", .op(Op.kdsRush), access: .roles([.kitchen]),
              summary: "Put an order's tickets ahead of the queue, or take the rush back", body: .object(schema: "RushCommand", required: true),
              reply: "ExpediterOrder"),
        Route(.post, "/v1/kitchen/orders/{orderId}/cancel", .op(Op.orderCancel), access: .roles([.kitchen]),
              summary: "Cancel an order as the kitchen, with a reason", body: .object(schema: "CancelOrderRequest", required: true),
              constants: [("by", .string("kitchen"))], reply: "OrderView"),
        Route(.put, "/v1/kitchen/items/{itemId}/availability", .op(Op.menuAvailabilitySet), access: .roles([.kitchen]),
              summary: "86 an item at the kitchen's café, or bring it back", body: .object(schema: "MenuAvailabilityRequest", required: true),
              reply: "MenuAvailability"),
    ]
}
