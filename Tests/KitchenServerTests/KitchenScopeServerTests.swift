import Foundation
import KitchenCore
@testable import KitchenServer
import Messages
import Policy
import ServiceRuntime
import Testing
import TestSupport

/// The keys the kitchen's scope tests call as: the kitchens of Caffè Macs and Macs Coffee, a
/// kiosk, a phone and the operator.
enum Keys {
    static func make(_ name: String, _ role: Role, device: String? = nil, user: String? = nil, cafe: String? = nil) -> Caller {
        Caller(principal: Principal(name: name, role: role, publicKey: String(repeating: "k", count: 40), deviceId: device, userId: user, cafeId: cafe))
    }

    static let macsKitchen = make("kitchen-macs", .kitchen, cafe: "caffe-macs")
    static let coffeeKitchen = make("kitchen-coffee", .kitchen, cafe: "macs-coffee")
    static let macsKiosk = make("kiosk-macs", .kiosk, cafe: "caffe-macs")
    static let ann = make("phone-ann", .phone, device: "phone-ann", user: "ann")
    static let operatorKey = make("operator", .operator)
}

/// kitchen-display's ops through its router as the keys the request socket would hand over: a
/// kitchen sees and acts on its own café's tickets only, the operator sees every café and acts on
/// none; a refusal is auth.forbidden and leaves every ticket and the outbox as they were.
@Suite(.serialized)
struct KitchenScopeServerTests {
    /// A kitchen with one order at Caffè Macs (ord-macs) and one at Macs Coffee (ord-coffee).
    static func twoCafes() throws -> KitchenHarness {
        let h = try KitchenHarness()
        try h.apply(h.event(.orderPlaced, h.order("ord-macs")))
        try h.apply(h.event(.orderPlaced, h.order("ord-coffee", cafe: "macs-coffee")))
        return h
    }

    @Test("kds.tickets, kds.orders, kds.counts: a kitchen its own café (named or not), never another's; the operator every café")
    func views() throws {
        let h = try Self.twoCafes()
        func call<B: Codable & Sendable, R: Codable & Sendable>(_ op: String, _ body: B, _ caller: Caller, _: R.Type) throws -> R {
            try Wire.decodeReply(h.host.requests.router.handle(Wire.encode(Request(op: op, body: body)), caller: caller), body: R.self).get()
        }
        let own = try call(Op.kdsTickets, TicketsQuery(), Keys.macsKitchen, TicketsReply.self).tickets
        #expect(Set(own.map(\.orderId)) == ["ord-macs"], "a kitchen naming no café sees its own")
        #expect(try call(Op.kdsTickets, TicketsQuery(cafeId: "caffe-macs"), Keys.macsKitchen, TicketsReply.self).tickets.count == 2)
        #expect(try call(Op.kdsOrders, OrdersQuery(), Keys.coffeeKitchen, OrdersReply.self).orders.map(\.orderId) == ["ord-coffee"])
        #expect(try call(Op.kdsCounts, CountsQuery(station: "grill"), Keys.macsKitchen, CountsReply.self).counts.map(\.quantity) == [2])
        #expect(try call(Op.kdsTickets, TicketsQuery(), Keys.operatorKey, TicketsReply.self).tickets.count == 4)
        #expect(try call(Op.kdsOrders, OrdersQuery(cafeId: "macs-coffee"), Keys.operatorKey, OrdersReply.self).orders.count == 1)
        #expect(try call(Op.kdsCounts, CountsQuery(), Keys.operatorKey, CountsReply.self).counts.count == 2)

        try h.expectForbidden(Op.kdsTickets, TicketsQuery(cafeId: "macs-coffee"), as: Keys.macsKitchen)
        try h.expectForbidden(Op.kdsOrders, OrdersQuery(cafeId: "macs-coffee", includeDone: true), as: Keys.macsKitchen)
        try h.expectForbidden(Op.kdsCounts, CountsQuery(cafeId: "caffe-macs"), as: Keys.coffeeKitchen)
        try h.expectForbidden(Op.kdsTickets, TicketsQuery(), as: Keys.macsKiosk)
        try h.expectForbidden(Op.kdsOrders, OrdersQuery(), as: Keys.ann)
    }

    @Test("kds.start, kds.bump, kds.recall: a kitchen at its café; another café's kitchen, a kiosk, a phone and the operator change nothing", arguments: [
        (Op.kdsStart, TicketBoard.Command.start), (Op.kdsBump, .bump), (Op.kdsRecall, .recall),
    ])
    func commands(op: String, command: TicketBoard.Command) throws {
        let h = try Self.twoCafes()
        // A recall needs a bumped ticket: bump it first, as the developer.
        if command == .recall { _ = try h.service.command(.bump, "ord-macs:grill") }
        let body = TicketCommand(ticketId: "ord-macs:grill")
        let another = try h.expectForbidden(op, body, as: Keys.coffeeKitchen)
        let unknown = try h.expectForbidden(op, TicketCommand(ticketId: "ord-nothing:grill"), as: Keys.coffeeKitchen)
        #expect(another.replacingOccurrences(of: "ord-macs", with: "ord-nothing") == unknown, "the refusal does not tell which: \(another)")
        for caller in [Keys.macsKiosk, Keys.ann, Keys.operatorKey] { try h.expectForbidden(op, body, as: caller) }
        let reply = try Wire.decodeReply(h.host.requests.router.handle(Wire.encode(Request(op: op, body: body)), caller: Keys.macsKitchen), body: TicketView.self).get()
        #expect(reply.ticketId == "ord-macs:grill" && reply.state == (command == .bump ? .ready : .inProgress))
    }

    @Test("kds.rush: a kitchen rushes its café's orders, not another café's")
    func rush() throws {
        let h = try Self.twoCafes()
        try h.expectForbidden(Op.kdsRush, RushCommand(orderId: "ord-macs"), as: Keys.coffeeKitchen)
        try h.expectForbidden(Op.kdsRush, RushCommand(orderId: "ord-nothing"), as: Keys.coffeeKitchen)
        try h.expectForbidden(Op.kdsRush, RushCommand(orderId: "ord-macs"), as: Keys.operatorKey)
        let reply = try Wire.decodeReply(h.host.requests.router.handle(Wire.encode(Request(op: Op.kdsRush, body: RushCommand(orderId: "ord-macs"))), caller: Keys.macsKitchen),
                                         body: ExpediterOrder.self).get()
        #expect(reply.rush && reply.tickets.count == 2)
    }
}

extension KitchenHarness {
    /// Expects `caller` refused `op` with auth.forbidden, every ticket and the outbox unchanged;
    /// returns the refusal's message.
    @discardableResult
    func expectForbidden<Body: Codable & Sendable>(_ op: String, _ body: Body, as caller: Caller, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let before = try written()
        let reply = host.requests.router.handle(Wire.encode(Request(op: op, body: body)), caller: caller)
        let error = try Wire.decodeReply(reply, body: Empty.self).error
        #expect(error?.code == "auth.forbidden", "\(caller.name) \(op): \(String(describing: error))", sourceLocation: sourceLocation)
        #expect(try written() == before, "a refused \(op) changed nothing", sourceLocation: sourceLocation)
        return error?.message ?? ""
    }

    /// Every ticket as stored and the outbox's size, as one comparable text.
    func written() throws -> String {
        let tickets = try host.db.query("SELECT ticket_id || ' ' || state || ' ' || rush || ' ' || IFNULL(bumped_ms, '-') AS r FROM tickets ORDER BY ticket_id")
        let events = try host.db.query("SELECT COUNT(*) || ' events' AS r FROM outbox")
        return (tickets + events).map { $0.string("r") }.joined(separator: "\n")
    }
}
