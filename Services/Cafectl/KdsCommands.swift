import Foundation
import Messages
import ServiceRuntime

/// The kitchen commands (`cafectl kds ...`), all answered by kitchen-display's command socket:
/// the same requests its terminal screen sends for a key press.
extension ClientCommands {
    static let station = Option<String?>("station", help: "one station's tickets (grill, bar, expediter …)")
    static let includeDone = Option.flag("all", default: false, help: "include what is done")
    static let off = Option.flag("off", default: false, help: "take the rush off again")
    static let reason = Option<String?>("reason", help: "why, as the kitchen or the customer says it")

    static let kdsTickets = [CommandFlag(cafe), CommandFlag(station), CommandFlag(includeDone)]
    static let kdsOrders = [CommandFlag(cafe), CommandFlag(includeDone)]
    static let kdsCounts = [CommandFlag(cafe), CommandFlag(station)]
    static let kdsRush = [CommandFlag(off)]
    static let kdsAvailability = [CommandFlag(cafe), CommandFlag(reason)]

    func runKitchen(_ args: CommandArguments) throws {
        let words = args.words
        func id(_ what: String) throws -> String {
            guard words.count == 3 else { throw UsageError("usage: cafectl kds \(words[1]) <\(what)>") }
            return words[2]
        }
        switch words.count > 1 ? words[1] : "" {
        case "tickets":
            let flags = try values(args, Self.kdsTickets)
            let query = TicketsQuery(cafeId: flags[Self.cafe], station: flags[Self.station], includeDone: flags[Self.includeDone])
            _ = try call(Endpoints.kitchen, Op.kdsTickets, query, as: TicketsReply.self)
        case "orders", "expediter":
            let flags = try values(args, Self.kdsOrders)
            _ = try call(Endpoints.kitchen, Op.kdsOrders, OrdersQuery(cafeId: flags[Self.cafe], includeDone: flags[Self.includeDone]), as: OrdersReply.self)
        case "counts":
            let flags = try values(args, Self.kdsCounts)
            _ = try call(Endpoints.kitchen, Op.kdsCounts, CountsQuery(cafeId: flags[Self.cafe], station: flags[Self.station]), as: CountsReply.self)
        case "start", "bump", "recall":
            let ticket = try id("ticket-id")
            _ = try values(args, [])
            let op = ["start": Op.kdsStart, "bump": Op.kdsBump, "recall": Op.kdsRecall][words[1]]!
            _ = try call(Endpoints.kitchen, op, TicketCommand(ticketId: ticket), as: TicketView.self)
        case "rush":
            let order = try id("order-id")
            let rush = try values(args, Self.kdsRush)[Self.off] == false
            _ = try call(Endpoints.kitchen, Op.kdsRush, RushCommand(orderId: order, rush: rush), as: ExpediterOrder.self)
        case "86", "restore":
            // Sold out, or back: order-service owns the menu, so this goes there, as the kitchen's key.
            let item = try id("item-id")
            let flags = try values(args, Self.kdsAvailability)
            let request = MenuAvailabilityRequest(cafeId: flags[Self.cafe], itemId: item, available: words[1] == "restore", reason: flags[Self.reason])
            _ = try call(Endpoints.orders, Op.menuAvailabilitySet, request, as: MenuAvailability.self)
        default:
            throw UsageError("unknown command \"\(words.joined(separator: " "))\"; kds takes tickets, orders, counts, start, bump, recall, rush, 86, restore (see cafectl help)")
        }
    }
}
