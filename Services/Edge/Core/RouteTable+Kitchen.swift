import Messages
import Policy

extension RouteTable {
    /// The kitchen tablet: its tickets, the expediter's view, kitchen cancels and sold-out marks.
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
