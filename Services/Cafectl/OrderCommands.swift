import Foundation
import Messages
import ServiceRuntime

extension ClientCommands {
    /// `cafectl order place|get|cancel|pickup|history|claim`.
    func runOrder(_ args: inout Arguments) throws {
        let words = args.words
        switch words.count > 1 ? words[1] : "" {
        case "place":
            let items = try args.all("item").map(parseItem)
            let channel = try enumValue(OrderChannel.self, args.string("channel") ?? "app", "channel")
            var clip: ClipLaunch?
            if let url = args.string("clip-url") {
                let acquired = args.string("acquired-at") ?? "now"
                let acquiredAt: Timestamp
                if acquired == "now" {
                    acquiredAt = Timestamp(Date())
                } else if let parsed = Timestamp(rfc3339: acquired) {
                    acquiredAt = parsed
                } else {
                    throw UsageError("--acquired-at must be RFC 3339 (2026-11-21T12:30:00Z) or now")
                }
                clip = ClipLaunch(url: url, invocation: try enumValue(ClipInvocation.self, args.string("invocation") ?? "appClipCode", "invocation"),
                                  acquiredAt: acquiredAt)
            }
            let request = PlaceOrderRequest(
                idempotencyKey: args.string("key") ?? "key-" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""),
                channel: channel, userId: args.string("user"), deviceId: args.string("device"), cafeId: try args.required("cafe"),
                reservationId: try args.required("reservation"), items: items, paymentToken: args.string("payment"),
                locale: args.string("locale") ?? "en_US", clip: clip)
            try args.checkAllUsed()
            _ = try call("orders", Op.orderPlace, request, as: OrderView.self)
        case "get", "pickup", "history":
            guard words.count == 3 else { throw UsageError("usage: cafectl order \(words[1]) <order-id>") }
            let query = OrderQuery(orderId: words[2], locale: args.string("locale"))
            try args.checkAllUsed()
            switch words[1] {
            case "get": _ = try call("orders", Op.orderGet, query, as: OrderView.self)
            case "pickup": _ = try call("orders", Op.orderPickup, query, as: OrderView.self)
            default: _ = try call("orders", Op.orderHistory, query, as: OrderHistory.self)
            }
        case "cancel":
            guard words.count == 3 else { throw UsageError("usage: cafectl order cancel <order-id> --by customer|kitchen [--user U] [--device D] [--reason R]") }
            let request = CancelOrderRequest(orderId: words[2], by: try enumValue(CancelOrderRequest.Actor.self, try args.required("by"), "by"),
                                             userId: args.string("user"), deviceId: args.string("device"), reason: args.string("reason"),
                                             locale: args.string("locale"))
            try args.checkAllUsed()
            _ = try call("orders", Op.orderCancel, request, as: OrderView.self)
        case "claim":
            let request = ClaimOrdersRequest(deviceId: try endpoints.identity.required("device", &args), userId: try endpoints.identity.required("user", &args))
            try args.checkAllUsed()
            _ = try call("orders", Op.orderClaim, request, as: ClaimOrdersReply.self)
        default:
            throw UsageError("unknown command \"\(words.joined(separator: " "))\": order place|get|cancel|pickup|history|claim (see cafectl help)")
        }
    }
}
