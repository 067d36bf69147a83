import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// PROTOCOL §7: a kiosk reaches, cancels and hands over only guest orders at its café. Over real
/// CURVE sockets, every order op the table opens to a kiosk (`order.get`, `order.pickup`,
/// `order.cancel`) against a phone's app order at its café and a guest order at another café
/// (refused, `auth.forbidden`, nothing changes) and a guest order at its own café (allowed).
@Suite(.serialized)
struct DeployedKioskScopeTests {
    /// A kiosk guest order of one `item` at `cafeId`, placed by `kiosk`.
    static func guestOrder(_ kiosk: RequestClient, cafeId: String, item: String, key: String) throws -> OrderSnapshot {
        let window = try #require(try kiosk.call(Op.windowsList, WindowsRequest(cafeId: cafeId, locale: "en_US"), as: WindowsReply.self).windows.first { $0.remaining > 0 })
        let held = try kiosk.call(Op.windowReserve, ReserveRequest(cafeId: cafeId, start: window.start, userId: nil, locale: "en_US"), as: ReservationView.self)
        return try kiosk.call(Op.orderPlace, PlaceOrderRequest(
            idempotencyKey: key, channel: .kiosk, userId: nil, deviceId: nil, cafeId: cafeId, reservationId: held.reservationId,
            items: [OrderItemRequest(itemId: item, quantity: 1)], paymentToken: nil, locale: "en_US"), as: OrderView.self).order
    }

    /// Bumps every ticket of `orderId` at `kitchen`'s café and waits until order-service says it is ready.
    static func makeReady(_ orderId: String, kitchen: RequestClient, orders: RequestClient) throws {
        let tickets = try eventually("the tickets of \(orderId)") {
            let mine = try kitchen.call(Op.kdsTickets, TicketsQuery(), as: TicketsReply.self).tickets.filter { $0.orderId == orderId }
            return mine.isEmpty ? nil : mine
        }
        for ticket in tickets { _ = try kitchen.call(Op.kdsBump, TicketCommand(ticketId: ticket.ticketId), as: TicketView.self) }
        _ = try eventually("\(orderId) ready at order-service") {
            try orders.call(Op.orderGet, OrderQuery(orderId: orderId), as: OrderView.self).order.state == .ready ? true : nil
        }
    }

    @Test("a kiosk reads, hands over and cancels only guest orders at its café: a phone's order there and a guest order at another café are refused and unchanged")
    func kioskKeptToGuestOrders() throws {
        let platform = try DeployedScopeTests.platform()
        try requireValue(platform.keys).add(name: "kiosk-coffee", role: .kiosk, cafeId: "macs-coffee")
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        var clients: [RequestClient] = []
        defer { clients.forEach { $0.close() } }
        func client(_ service: String, as principal: String) throws -> RequestClient {
            clients.append(try platform.client(service, as: principal, context: context))
            return clients[clients.count - 1]
        }
        let (ann, kiosk, coffeeKiosk) = (try client("order-service", as: "phone-ann"), try client("order-service", as: "kiosk-macs"), try client("order-service", as: "kiosk-coffee"))
        let (kitchenOrders, kitchen) = (try client("order-service", as: "kitchen-macs"), try client("kitchen-display", as: "kitchen-macs"))

        // Ann's app order at Caffè Macs, ready; a guest's at Caffè Macs, ready; a guest's at Macs Coffee.
        let window = try #require(try ann.call(Op.windowsList, WindowsRequest(cafeId: "caffe-macs", locale: "en_US"), as: WindowsReply.self).windows.first { $0.remaining > 2 })
        let held = try ann.call(Op.windowReserve, ReserveRequest(cafeId: "caffe-macs", start: window.start, userId: nil, locale: "en_US"), as: ReservationView.self)
        let app = try ann.call(Op.orderPlace, PlaceOrderRequest(
            idempotencyKey: "kiosk-scope-ann", channel: .app, userId: nil, deviceId: nil, cafeId: "caffe-macs", reservationId: held.reservationId,
            items: [OrderItemRequest(itemId: "fries", quantity: 1)], paymentToken: "tok_4242424242424242", locale: "en_US"), as: OrderView.self).order
        let guest = try Self.guestOrder(kiosk, cafeId: "caffe-macs", item: "fries", key: "kiosk-scope-guest")
        let elsewhere = try Self.guestOrder(coffeeKiosk, cafeId: "macs-coffee", item: "latte", key: "kiosk-scope-coffee")
        try Self.makeReady(app.orderId, kitchen: kitchen, orders: kitchenOrders)
        try Self.makeReady(guest.orderId, kitchen: kitchen, orders: kitchenOrders)

        // Every kiosk op on Ann's order and on the other café's guest order: refused, and the
        // refusal carries nothing of Ann's.
        for order in [app, elsewhere] {
            let id = order.orderId
            let refusals: [(String, () throws -> Void)] = [
                ("order.get", { _ = try kiosk.call(Op.orderGet, OrderQuery(orderId: id), as: OrderView.self) }),
                ("order.pickup", { _ = try kiosk.call(Op.orderPickup, OrderQuery(orderId: id), as: OrderView.self) }),
                ("order.cancel", { _ = try kiosk.call(Op.orderCancel, CancelOrderRequest(orderId: id, by: .customer), as: OrderView.self) }),
            ]
            for (op, request) in refusals {
                let refusal = serviceError(request)
                #expect(refusal?.code == "auth.forbidden" && refusal?.message.contains("kiosk-macs") == true, "\(op) on \(order.channel.rawValue) order at \(order.cafeId): \(String(describing: refusal))")
                #expect(refusal?.message.contains("ann") == false, "\(op): the refusal names nobody's user or device")
            }
        }
        #expect(try ann.call(Op.orderGet, OrderQuery(orderId: app.orderId), as: OrderView.self).order.state == .ready, "Ann's order is as it was")
        #expect(try coffeeKiosk.call(Op.orderGet, OrderQuery(orderId: elsewhere.orderId), as: OrderView.self).order.state == elsewhere.state)

        // Its own café's guest orders: read, handed over, and (another, not yet ready) cancelled.
        #expect(try kiosk.call(Op.orderGet, OrderQuery(orderId: guest.orderId), as: OrderView.self).order.state == .ready)
        #expect(try kiosk.call(Op.orderPickup, OrderQuery(orderId: guest.orderId), as: OrderView.self).order.state == .pickedUp)
        let second = try Self.guestOrder(kiosk, cafeId: "caffe-macs", item: "fries", key: "kiosk-scope-guest-2")
        #expect(try kiosk.call(Op.orderCancel, CancelOrderRequest(orderId: second.orderId, by: .customer), as: OrderView.self).order.state == .cancelled)

        let health = try client("order-service", as: KeyFolder.defaultOperator).call(Op.health, Empty(), as: HealthStatus.self)
        #expect(health.details["auth.refused"] == "6", "\(health.details)")
    }
}
