import Foundation
import Messages
import ServiceRuntime

extension ClientCommands {
    static let item = Option("item", default: "", help: "an item as id[:quantity[:modifier,modifier]]; one --item per line of the order")
    static let reservation = Option<String?>("reservation", help: "the reservation id (cafectl reserve)")
    static let payment = Option<String?>("payment", help: "the payment token (tok_…)")
    static let channel = Option.choice("channel", default: OrderChannel.app, help: "where the order is placed")
    static let idempotencyKey = Option<String?>("key", help: "the idempotency key (default: a new one)")
    static let clipURL = Option<String?>("clip-url", help: "placed from an App Clip launched by this URL")
    static let invocation = Option.choice("invocation", default: ClipInvocation.appClipCode, help: "how the App Clip was launched")
    static let acquiredAt = Option("acquired-at", default: "now", help: "when the App Clip's location was confirmed: now or RFC 3339")
    static let replyLocale = Option<String?>("locale", help: "the locale of the reply's text (default: the order's)")
    static let cancelledBy = Option<CancelOrderRequest.Actor?>.optionalChoice("by", help: "who cancels")

    static let orderPlace = [CommandFlag(item, .repeated), CommandFlag(channel), CommandFlag(clipURL), CommandFlag(acquiredAt), CommandFlag(invocation),
                             CommandFlag(idempotencyKey), CommandFlag(user), CommandFlag(device), CommandFlag(cafe), CommandFlag(reservation),
                             CommandFlag(payment), CommandFlag(locale)]
    static let orderQuery = [CommandFlag(replyLocale)]
    static let orderCancel = [CommandFlag(cancelledBy), CommandFlag(user), CommandFlag(device), CommandFlag(reason), CommandFlag(replyLocale)]
    static let orderClaim = [CommandFlag(device), CommandFlag(user)]

    /// `cafectl order place|get|cancel|pickup|history|claim`.
    func runOrder(_ args: CommandArguments) throws {
        let words = args.words
        switch words.count > 1 ? words[1] : "" {
        case "place":
            let flags = try values(args, Self.orderPlace)
            let items = try flags.every(Self.item).map(parseItem)
            var clip: ClipLaunch?
            if let url = flags[Self.clipURL] {
                let acquired = flags[Self.acquiredAt]
                let acquiredAt: Timestamp
                if acquired == "now" {
                    acquiredAt = Timestamp(Date())
                } else if let parsed = Timestamp(rfc3339: acquired) {
                    acquiredAt = parsed
                } else {
                    throw UsageError("--acquired-at must be RFC 3339 (2026-11-21T12:30:00Z) or now")
                }
                clip = ClipLaunch(url: url, invocation: flags[Self.invocation], acquiredAt: acquiredAt)
            }
            let request = PlaceOrderRequest(
                idempotencyKey: flags[Self.idempotencyKey] ?? "key-" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""),
                channel: flags[Self.channel], userId: flags[Self.user], deviceId: flags[Self.device], cafeId: try flags.required(Self.cafe),
                reservationId: try flags.required(Self.reservation), items: items, paymentToken: flags[Self.payment],
                locale: flags[Self.locale], clip: clip)
            _ = try call(Endpoints.orders, Op.orderPlace, request, as: OrderView.self)
        case "get", "pickup", "history":
            guard words.count == 3 else { throw UsageError("usage: cafectl order \(words[1]) <order-id>") }
            let query = OrderQuery(orderId: words[2], locale: try values(args, Self.orderQuery)[Self.replyLocale])
            switch words[1] {
            case "get": _ = try call(Endpoints.orders, Op.orderGet, query, as: OrderView.self)
            case "pickup": _ = try call(Endpoints.orders, Op.orderPickup, query, as: OrderView.self)
            default: _ = try call(Endpoints.orders, Op.orderHistory, query, as: OrderHistory.self)
            }
        case "cancel":
            guard words.count == 3 else { throw UsageError("usage: cafectl order cancel <order-id> --by customer|kitchen [--user U] [--device D] [--reason R]") }
            let flags = try values(args, Self.orderCancel)
            let request = CancelOrderRequest(orderId: words[2], by: try flags.required(Self.cancelledBy), userId: flags[Self.user], deviceId: flags[Self.device],
                                             reason: flags[Self.reason], locale: flags[Self.replyLocale])
            _ = try call(Endpoints.orders, Op.orderCancel, request, as: OrderView.self)
        case "claim":
            let flags = try values(args, Self.orderClaim)
            let request = ClaimOrdersRequest(deviceId: try endpoints.identity.device(flags), userId: try endpoints.identity.user(flags))
            _ = try call(Endpoints.orders, Op.orderClaim, request, as: ClaimOrdersReply.self)
        default:
            throw UsageError("unknown command \"\(words.joined(separator: " "))\": order place|get|cancel|pickup|history|claim (see cafectl help)")
        }
    }
}
