import Foundation
import Messages

/// The kitchen commands (`cafectl kds ...`), all answered by kitchen-display's command socket:
/// the same requests its terminal screen sends for a key press.
extension ClientCommands {
    func runKitchen(_ args: inout Arguments) throws {
        let words = args.words
        func id(_ what: String) throws -> String {
            guard words.count == 3 else { throw UsageError("usage: cafectl kds \(words[1]) <\(what)>") }
            return words[2]
        }
        switch words.count > 1 ? words[1] : "" {
        case "tickets":
            let query = TicketsQuery(cafeId: args.string("cafe"), station: args.string("station"), includeDone: try args.bool("all", default: false))
            try args.checkAllUsed()
            _ = try call("kitchen", Op.kdsTickets, query, as: TicketsReply.self)
        case "orders", "expediter":
            let query = OrdersQuery(cafeId: args.string("cafe"), includeDone: try args.bool("all", default: false))
            try args.checkAllUsed()
            _ = try call("kitchen", Op.kdsOrders, query, as: OrdersReply.self)
        case "counts":
            let query = CountsQuery(cafeId: args.string("cafe"), station: args.string("station"))
            try args.checkAllUsed()
            _ = try call("kitchen", Op.kdsCounts, query, as: CountsReply.self)
        case "start", "bump", "recall":
            let ticket = try id("ticket-id")
            try args.checkAllUsed()
            let op = ["start": Op.kdsStart, "bump": Op.kdsBump, "recall": Op.kdsRecall][words[1]]!
            _ = try call("kitchen", op, TicketCommand(ticketId: ticket), as: TicketView.self)
        case "rush":
            let order = try id("order-id")
            let rush = try args.bool("off", default: false) == false
            try args.checkAllUsed()
            _ = try call("kitchen", Op.kdsRush, RushCommand(orderId: order, rush: rush), as: ExpediterOrder.self)
        case "86", "restore":
            // Sold out, or back: order-service owns the menu, so this goes there, as the kitchen's key.
            let item = try id("item-id")
            let request = MenuAvailabilityRequest(cafeId: args.string("cafe"), itemId: item, available: words[1] == "restore", reason: args.string("reason"))
            try args.checkAllUsed()
            _ = try call("orders", Op.menuAvailabilitySet, request, as: MenuAvailability.self)
        default:
            throw UsageError("unknown command \"\(words.joined(separator: " "))\"; kds takes tickets, orders, counts, start, bump, recall, rush, 86, restore (see cafectl help)")
        }
    }
}
