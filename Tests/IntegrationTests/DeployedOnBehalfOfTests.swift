import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// The HTTP edge's key (role `edge`) over real CURVE sockets: it acts on behalf of the principal
/// each request names, held to that principal's scope exactly as that principal's own key would
/// be; as itself it reaches only health; any other key naming a principal is refused, counted,
/// and changes nothing.
@Suite(.serialized)
struct DeployedOnBehalfOfTests {
    static let alice = OnBehalfOf.phone("session-alice", userId: "alice", deviceId: "phone-alice")
    static let bob = OnBehalfOf.phone("session-bob", userId: "bob", deviceId: "phone-bob")
    static let macsCounter = OnBehalfOf.counter("kiosk", "tablet-macs", cafeId: "caffe-macs")

    /// An app order of fries at Caffè Macs for `principal`, its ids left out (taken from the principal).
    static func appOrder(_ edge: RequestClient, for principal: OnBehalfOf, key: String) throws -> OrderSnapshot {
        let window = try #require(try edge.call(Op.windowsList, WindowsRequest(cafeId: "caffe-macs", locale: "en_US"), onBehalfOf: principal, as: WindowsReply.self)
            .windows.first { $0.remaining > 0 })
        let held = try edge.call(Op.windowReserve, ReserveRequest(cafeId: "caffe-macs", start: window.start, userId: nil, locale: "en_US"), onBehalfOf: principal,
                                 as: ReservationView.self)
        return try edge.call(Op.orderPlace, PlaceOrderRequest(
            idempotencyKey: key, channel: .app, userId: nil, deviceId: nil, cafeId: "caffe-macs", reservationId: held.reservationId,
            items: [OrderItemRequest(itemId: "fries", quantity: 1)], paymentToken: "tok_4242424242424242", locale: "en_US"), onBehalfOf: principal, as: OrderView.self).order
    }

    @Test("the edge acts for a phone as that phone's key would: its own order placed and read, another user's refused; for a kiosk, kept to its café")
    func edgeActsForPrincipals() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        let keys = try requireValue(platform.keys)
        try keys.add(name: "edge", role: .edge)
        try platform.start(busAnd: ["region-monitor", "order-service", "notification-service"])
        let context = try Context()
        let (edge, edgeNotify) = (try platform.client("order-service", as: "edge", context: context), try platform.client("notification-service", as: "edge", context: context))
        defer { edge.close(); edgeNotify.close() }

        // Alice's and Bob's sessions each place an order; each order is its own principal's.
        let mine = try Self.appOrder(edge, for: Self.alice, key: "edge-alice-1")
        let theirs = try Self.appOrder(edge, for: Self.bob, key: "edge-bob-1")
        #expect(mine.userId == "alice" && mine.deviceId == "phone-alice" && theirs.userId == "bob")
        #expect(try edge.call(Op.orderGet, OrderQuery(orderId: mine.orderId), onBehalfOf: Self.alice, as: OrderView.self).order.orderId == mine.orderId)
        let register = RegisterDevice(deviceId: nil, userId: nil, channel: "bus", language: "en", locale: "en_US", authorization: .authorized)
        #expect(try edgeNotify.call(Op.deviceRegister, register, onBehalfOf: Self.alice, as: Registration.self).deviceId == "phone-alice")

        // Alice's session may not read or cancel Bob's order, nor name Bob in a body.
        let read = serviceError { try edge.call(Op.orderGet, OrderQuery(orderId: theirs.orderId), onBehalfOf: Self.alice, as: OrderView.self) }
        #expect(read?.code == "auth.forbidden" && read?.message.contains("session-alice") == true, "\(String(describing: read))")
        #expect(errorCode { try edge.call(Op.orderCancel, CancelOrderRequest(orderId: theirs.orderId, by: .customer), onBehalfOf: Self.alice, as: OrderView.self) } == "auth.forbidden")
        #expect(errorCode { try edge.call(Op.preferenceGet, PreferenceRequest(userId: "bob"), onBehalfOf: Self.alice, as: PreferenceView.self) } == "auth.forbidden")

        // For Caffè Macs' counter: guest orders there; not Alice's app order, not another café.
        let counterWindow = try #require(try edge.call(Op.windowsList, WindowsRequest(cafeId: "caffe-macs", locale: "en_US"), onBehalfOf: Self.macsCounter,
                                                       as: WindowsReply.self).windows.first { $0.remaining > 0 })
        let held = try edge.call(Op.windowReserve, ReserveRequest(cafeId: "caffe-macs", start: counterWindow.start, userId: nil, locale: "en_US"), onBehalfOf: Self.macsCounter,
                                 as: ReservationView.self)
        let guest = try edge.call(Op.orderPlace, PlaceOrderRequest(
            idempotencyKey: "edge-counter-1", channel: .kiosk, userId: nil, deviceId: nil, cafeId: "caffe-macs", reservationId: held.reservationId,
            items: [OrderItemRequest(itemId: "fries", quantity: 1)], paymentToken: nil, locale: "en_US"), onBehalfOf: Self.macsCounter, as: OrderView.self).order
        #expect(guest.channel == .kiosk && guest.userId == nil)
        #expect(try edge.call(Op.orderGet, OrderQuery(orderId: guest.orderId), onBehalfOf: Self.macsCounter, as: OrderView.self).order.orderId == guest.orderId)
        #expect(errorCode { try edge.call(Op.orderGet, OrderQuery(orderId: mine.orderId), onBehalfOf: Self.macsCounter, as: OrderView.self) } == "auth.forbidden")
        #expect(errorCode { try edge.call(Op.windowsList, WindowsRequest(cafeId: "macs-coffee", locale: "en_US"), onBehalfOf: Self.macsCounter, as: WindowsReply.self) }
                == "auth.forbidden")

        // As itself the edge reaches health and nothing else.
        #expect(try edge.call(Op.health, Empty(), as: HealthStatus.self).status == "ok")
        #expect(errorCode { try edge.call(Op.orderGet, OrderQuery(orderId: mine.orderId), as: OrderView.self) } == "auth.forbidden")
        #expect(errorCode { try edge.call(Op.orderHistory, OrderQuery(orderId: mine.orderId), as: OrderHistory.self) } == "auth.forbidden")
        let health = try platform.client("order-service", as: KeyFolder.defaultOperator, context: context).call(Op.health, Empty(), as: HealthStatus.self).details
        #expect(health["auth.refused"] == "7" && health["auth.refused.onBehalfOf"] == "0", "\(health)")
    }

    @Test("a phone, kiosk, kitchen, gateway, operator or service key naming an on-behalf-of principal is refused and counted, and nothing changes")
    func onlyTheEdgeMayNameAPrincipal() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        let keys = try requireValue(platform.keys)
        try keys.add(name: "edge", role: .edge)
        try keys.add(name: "phone-ann", role: .phone, deviceId: "phone-ann", userId: "ann")
        try keys.add(name: "kiosk-macs", role: .kiosk, cafeId: "caffe-macs")
        try keys.add(name: "kitchen-macs", role: .kitchen, cafeId: "caffe-macs")
        try keys.add(name: "gateway-hall", role: .gateway)
        try platform.start(busAnd: ["region-monitor", "order-service"])
        let context = try Context()
        let edge = try platform.client("order-service", as: "edge", context: context)
        defer { edge.close() }
        let order = try Self.appOrder(edge, for: Self.bob, key: "edge-bob-2")

        // Ann's phone claims to be Bob's session to cancel his order; the others to read it.
        let ann = try platform.client("order-service", as: "phone-ann", context: context)
        defer { ann.close() }
        let cancel = serviceError { try ann.call(Op.orderCancel, CancelOrderRequest(orderId: order.orderId, by: .customer), onBehalfOf: Self.bob, as: OrderView.self) }
        #expect(cancel?.code == "auth.forbidden" && cancel?.message.contains("phone-ann") == true && cancel?.message.contains("edge") == true, "\(String(describing: cancel))")
        for name in ["kiosk-macs", "kitchen-macs", "gateway-hall", KeyFolder.defaultOperator, "order-service"] {
            let client = try platform.client("order-service", as: name, context: context)
            defer { client.close() }
            #expect(errorCode { try client.call(Op.orderGet, OrderQuery(orderId: order.orderId), onBehalfOf: Self.bob, as: OrderView.self) } == "auth.forbidden", "\(name)")
        }
        // The bus's own request socket refuses it too.
        let bus = try platform.client("bus", as: KeyFolder.defaultOperator, context: context)
        defer { bus.close() }
        #expect(errorCode { try bus.call(Op.health, Empty(), onBehalfOf: Self.bob, as: HealthStatus.self) } == "auth.forbidden")
        let busHealth = try bus.call(Op.health, Empty(), as: HealthStatus.self).details
        #expect(busHealth["auth.refused.onBehalfOf"] == "1", "\(busHealth)")

        #expect(try edge.call(Op.orderGet, OrderQuery(orderId: order.orderId), onBehalfOf: Self.bob, as: OrderView.self).order.state == .accepted, "Bob's order is as it was")
        let health = try platform.client("order-service", as: KeyFolder.defaultOperator, context: context).call(Op.health, Empty(), as: HealthStatus.self).details
        #expect(health["auth.refused"] == "6" && health["auth.refused.onBehalfOf"] == "6", "\(health)")
    }
}
