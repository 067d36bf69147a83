import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// Kitchen timing through real processes: an app order held until its fire times, fired early by
/// its customer's walk into the café's approach area (`cafectl walk`: region-monitor → order-service
/// → kitchen-display), and bumped; a ready order recalled and told again.
@Suite(.serialized)
struct KitchenTimingTests {
    /// alice's app order from phone-1 at Caffè Macs (a burger, 240 s at the grill; a Caesar salad,
    /// 150 s) for the window after next, so her walk comes well before it.
    static func placeAppOrder(_ orders: RequestClient, key: String) throws -> OrderView {
        let windows = try orders.call(Op.windowsList, WindowsRequest(cafeId: "caffe-macs", locale: "en_US", count: 3), as: WindowsReply.self).windows
        let reservation = try orders.call(Op.windowReserve, ReserveRequest(cafeId: "caffe-macs", start: windows[1].start, userId: "alice", locale: "en_US"),
                                          as: ReservationView.self)
        return try orders.call(Op.orderPlace, PlaceOrderRequest(
            idempotencyKey: key, channel: .app, userId: "alice", deviceId: "phone-1", cafeId: "caffe-macs", reservationId: reservation.reservationId,
            items: [OrderItemRequest(itemId: "burger", quantity: 1), OrderItemRequest(itemId: "caesar", quantity: 1)],
            paymentToken: "tok_4242424242424242", locale: "en_US"), as: OrderView.self)
    }

    @Test("held for its window, fired early by a walk into the approach area, paced again on arrival, and bumped")
    func pacedByTheWalk() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["kitchen.paced.", "order.approaching.", "order.ready."],
                                     probe: platform.busPub)
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"), timeoutMilliseconds: 3_000)
        let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"), timeoutMilliseconds: 3_000)
        defer { [orders, kitchen].forEach { $0.close() }; watcher.close() }

        let order = try Self.placeAppOrder(orders, key: "paced-walk-1").order
        #expect(order.lines.map(\.prepSeconds) == [240, 150] && order.paced == true)
        let held = try eventually("the order's tickets, held") {
            let tickets = try kitchen.call(Op.kdsTickets, TicketsQuery(cafeId: "caffe-macs"), as: TicketsReply.self).tickets
            return tickets.count == 2 ? tickets : nil
        }
        #expect(held.allSatisfy { $0.firing == .hold && $0.targetReadyAt == order.pickupStart }, "\(held)")
        #expect(Set(held.map(\.fireAt)) == [order.pickupStart.adding(seconds: -240), order.pickupStart.adding(seconds: -150)])

        // alice walks in from the car park (25× speed): through the approach area (170 m), into the café.
        let walk = try platform.cafectl(["walk", "--device", "phone-1", "--speed", "25", "--campus", platform.campus])
        #expect(walk.status == 0, "\(walk.err)")
        let approaching = try watcher.waitFor("order.approaching.caffe-macs.", timeout: 20)
        guard case .order(let event) = approaching.envelope.body else { Issue.record("not an order event"); return }
        let expected = try #require(event.order.expectedArrivalAt)
        #expect(expected == event.order.approachedAt?.adding(seconds: 131), "the catalog's walk from the approach edge")
        let paced = try watcher.waitFor("kitchen.paced.caffe-macs.", timeout: 10) { message in
            if case .paced(let p) = message.envelope.body { return p.reason == .approach }
            return false
        }
        guard case .paced(let pacing) = paced.envelope.body else { return }
        #expect(pacing.previousTarget == order.pickupStart && pacing.target < order.pickupStart, "fired early: \(pacing)")
        _ = try watcher.waitFor("kitchen.paced.caffe-macs.", timeout: 15) { message in
            if case .paced(let p) = message.envelope.body { return p.reason == .arrival }
            return false
        }
        // Her burger is on: the grill fires now, the salad to finish with it.
        let fired = try kitchen.call(Op.kdsTickets, TicketsQuery(cafeId: "caffe-macs"), as: TicketsReply.self).tickets
        #expect(fired.first { $0.station == "grill" }?.firing == .fire, "\(fired)")
        #expect(fired.allSatisfy { $0.customerHere && $0.arriving == true && $0.targetReadyAt! < order.pickupStart })
        for ticket in fired { _ = try kitchen.call(Op.kdsBump, TicketCommand(ticketId: ticket.ticketId), as: TicketView.self) }
        _ = try watcher.waitFor("order.ready.caffe-macs.", timeout: 10)
    }

    @Test("a recall after ready takes the order back to preparing and tells the customer 'a moment longer'; the next ready tells again")
    func recallAfterReady() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"), timeoutMilliseconds: 3_000)
        let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"), timeoutMilliseconds: 3_000)
        let notify = RequestClient(context: context, endpoint: platform.endpoint("notification-service"), timeoutMilliseconds: 3_000)
        defer { [orders, kitchen, notify].forEach { $0.close() } }
        _ = try notify.call(Op.deviceRegister, RegisterDevice(deviceId: "phone-1", userId: "alice", channel: "bus", language: "en", locale: "en_US",
                                                               authorization: .authorized), as: Registration.self)
        let order = try Self.placeAppOrder(orders, key: "recall-ready-1").order
        func inbox() throws -> [DeviceNotification] {
            try notify.call(Op.inboxList, InboxQuery(deviceId: "phone-1", limit: 50), as: InboxReply.self).notifications
        }
        func bumpAll() throws {
            let tickets = try eventually("tickets") {
                let t = try kitchen.call(Op.kdsTickets, TicketsQuery(cafeId: "caffe-macs"), as: TicketsReply.self).tickets.filter { $0.orderId == order.orderId }
                return t.isEmpty ? nil : t
            }
            for ticket in tickets { _ = try kitchen.call(Op.kdsBump, TicketCommand(ticketId: ticket.ticketId), as: TicketView.self) }
        }
        try bumpAll()
        _ = try eventually("ready told") { try inbox().filter { $0.kind == .orderReady }.count == 1 ? true : nil }

        _ = try kitchen.call(Op.kdsRecall, TicketCommand(ticketId: "\(order.orderId):grill"), as: TicketView.self)
        let back = try eventually("back to preparing") {
            let view = try orders.call(Op.orderGet, OrderQuery(orderId: order.orderId), as: OrderView.self).order
            return view.state == .preparing ? view : nil
        }
        #expect(back.recalls == 1)
        let history = try orders.call(Op.orderHistory, OrderQuery(orderId: order.orderId), as: OrderHistory.self)
        #expect(history.entries.last.map { "\($0.from?.rawValue ?? "-")→\($0.to.rawValue) \($0.actor)" } == "ready→preparing kitchen")
        let delayed = try eventually("a moment longer") { try inbox().first { $0.kind == .orderDelayed } }
        #expect(delayed.title == "A moment longer" && delayed.collapseId == order.orderId)

        _ = try kitchen.call(Op.kdsBump, TicketCommand(ticketId: "\(order.orderId):grill"), as: TicketView.self)
        let readies = try eventually("ready told again") {
            let ready = try inbox().filter { $0.kind == .orderReady }
            return ready.count == 2 ? ready : nil
        }
        #expect(readies.allSatisfy { $0.collapseId == order.orderId })
        #expect(try inbox().filter { $0.kind == .orderDelayed }.count == 1)
    }

    @Test("86 through cafectl: the menu shows it sold out, an order with it is refused naming it; restored, it orders again")
    func eightySix() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"), timeoutMilliseconds: 3_000)
        defer { orders.close() }
        let off = try platform.cafectl(["kds", "86", "burger", "--cafe", "caffe-macs", "--reason", "out of buns"])
        #expect(off.status == 0 && off.out.contains("\"available\":false"), "\(off.out) \(off.err)")
        let menu = try orders.call(Op.menuGet, MenuRequest(userId: "alice", deviceId: nil, locale: "en_US"), as: MenuReply.self)
        #expect(menu.cafe.id == "caffe-macs" && menu.items.first { $0.id == "burger" }?.available == false)
        let refused = errorCode { _ = try Self.placeAppOrder(orders, key: "eighty-six-1") }
        #expect(refused == "order.itemUnavailable")
        let restore = try platform.cafectl(["kds", "restore", "burger", "--cafe", "caffe-macs"])
        #expect(restore.status == 0 && restore.out.contains("\"available\":true"), "\(restore.out) \(restore.err)")
        #expect(try Self.placeAppOrder(orders, key: "eighty-six-2").order.lines.first?.itemId == "burger")
    }
}
