import Messages
import OrderCore
import Testing

@Suite("Order cancellation")
struct OrderCancellationTests {
    typealias F = OrderFixtures

    /// Who may cancel what: the order is ann's, placed from phone-1.
    @Test("who may cancel, and when", arguments: [
        ("the customer by user", CancelOrderRequest(orderId: "ord-1", by: .customer, userId: "ann"), OrderState.accepted, nil as String?),
        ("the customer by device", CancelOrderRequest(orderId: "ord-1", by: .customer, deviceId: "phone-1"), .placed, nil),
        ("another customer", CancelOrderRequest(orderId: "ord-1", by: .customer, userId: "bob"), .accepted, "order.notOwner"),
        ("another device", CancelOrderRequest(orderId: "ord-1", by: .customer, deviceId: "phone-2"), .accepted, "order.notOwner"),
        ("a customer naming nobody", CancelOrderRequest(orderId: "ord-1", by: .customer), .accepted, "request.invalidField"),
        ("the customer once preparing started", CancelOrderRequest(orderId: "ord-1", by: .customer, userId: "ann"), .preparing, "order.illegalTransition"),
        ("the kitchen with a reason", CancelOrderRequest(orderId: "ord-1", by: .kitchen, reason: "out of buns"), .ready, nil),
        ("the kitchen without a reason", CancelOrderRequest(orderId: "ord-1", by: .kitchen), .preparing, "request.invalidField"),
        ("the kitchen after pickup", CancelOrderRequest(orderId: "ord-1", by: .kitchen, reason: "late"), .pickedUp, "order.illegalTransition"),
        ("a no-show", CancelOrderRequest(orderId: "ord-1", by: .kitchen, reason: "late"), .noShow, "order.illegalTransition"),
    ] as [(String, CancelOrderRequest, OrderState, String?)])
    func rules(label: String, request: CancelOrderRequest, state: OrderState, code: String?) {
        #expect(errorCode { () throws(ServiceError) in try OrderCancellation.decide(request, order: F.order(state), now: t0) } == code, "\(label)")
    }

    @Test("no such order")
    func unknown() {
        #expect(errorCode { () throws(ServiceError) in try OrderCancellation.decide(CancelOrderRequest(orderId: "ord-404", by: .kitchen, reason: "x"), order: nil, now: t0) }
                == "order.unknown")
    }

    @Test("the request's fields are checked before the order is looked up", arguments: [
        (CancelOrderRequest(orderId: "o", by: .customer, userId: "ann"), nil as String?),
        (CancelOrderRequest(orderId: "o", by: .customer, userId: "a b"), "request.invalidField"),
        (CancelOrderRequest(orderId: "o", by: .customer, deviceId: "phone 1"), "request.invalidField"),
        (CancelOrderRequest(orderId: "o", by: .kitchen, reason: "   "), "request.invalidField"),
        (CancelOrderRequest(orderId: "o", by: .kitchen, reason: "bad\u{7}bell"), "request.invalidField"),
        (CancelOrderRequest(orderId: "o", by: .kitchen, reason: "ok", locale: "not a locale"), "request.invalidField"),
    ])
    func fields(request: CancelOrderRequest, code: String?) {
        #expect(errorCode { () throws(ServiceError) in try OrderCancellation.check(request) } == code)
    }

    @Test("a cancellation releases the reservation and says why, in the audit row and the event")
    func effects() throws {
        let customer = try OrderCancellation.decide(CancelOrderRequest(orderId: "ord-1", by: .customer, userId: "ann"), order: F.order(.accepted), now: t0)
        #expect(customer.order.state == .cancelled && customer.releasesReservation)
        #expect(customer.audit == [OrderAudit(orderId: "ord-1", from: .accepted, to: .cancelled, actor: .customer, reason: "cancelled by the customer", at: t0)])
        #expect(customer.events.map(\.type) == [.orderCancelled] && customer.events.first?.event.previous == .accepted)
        let kitchen = try OrderCancellation.decide(CancelOrderRequest(orderId: "ord-1", by: .kitchen, reason: "out of buns"), order: F.order(.ready), now: t0)
        #expect(kitchen.audit.first?.actor == .kitchen && kitchen.events.first?.event.reason == "out of buns")
    }
}
