import Foundation
import Messages
import Policy
import ServiceRuntime
import Testing
import TestSupport

/// The HTTP edge's on-behalf-of principals (issue 26): only an edge key (or the plain-mode
/// developer) may name one; the request then runs as that principal, held to its scope; any other
/// key naming one is refused before the op is looked at, and counted.
@Suite("On-behalf-of principals")
struct OnBehalfOfTests {
    static func key(_ name: String, _ role: Role, device: String? = nil, user: String? = nil, cafe: String? = nil, service: String? = nil) -> Caller {
        Caller(principal: Principal(name: name, role: role, publicKey: String(repeating: "e", count: 40), service: service, deviceId: device, userId: user, cafeId: cafe))
    }

    static let edge = key("edge", .edge)
    static let alice = OnBehalfOf.phone("session-alice", userId: "alice", deviceId: "phone-1")

    @Test("the edge acting for a phone, an App Clip guest, a kiosk or a kitchen is that principal, with the edge as `via`")
    func edgeActsAsThePrincipal() throws {
        let phone = try Self.edge.acting(onBehalfOf: Self.alice)
        #expect(phone.role == .phone && phone.name == "session-alice" && phone.via?.name == "edge" && phone.onBehalf)
        #expect(try phone.actingUser(required: nil) == "alice" && phone.actingDevice(required: nil) == "phone-1")
        #expect(errorCode { try phone.actingUser("bob") } == "auth.forbidden")
        let guest = try Self.edge.acting(onBehalfOf: .phone("clip-1", userId: nil, deviceId: "phone-9"))
        #expect(guest.principal?.userId == nil && guest.principal?.deviceId == "phone-9")
        let kiosk = try Self.edge.acting(onBehalfOf: .counter("kiosk", "tablet-k1", cafeId: "caffe-macs"))
        #expect(kiosk.role == .kiosk && kiosk.principal?.cafeId == "caffe-macs")
        #expect(errorCode { try kiosk.requireCafe("macs-coffee", "place an order") } == "auth.forbidden")
        #expect(try Self.edge.acting(onBehalfOf: nil) == Self.edge, "without one the edge is itself")
        // The plain-mode developer may narrow itself to a principal, and is then held to it.
        let narrowed = try Caller.developer.acting(onBehalfOf: Self.alice)
        #expect(narrowed.role == .phone && narrowed.via == nil && narrowed.onBehalf)
    }

    @Test("any key but the edge's naming a principal is refused with auth.forbidden", arguments: [
        key("phone-bob", .phone, device: "phone-2", user: "bob"), key("kiosk-macs", .kiosk, cafe: "caffe-macs"), key("kitchen-macs", .kitchen, cafe: "caffe-macs"),
        key("gateway-hall", .gateway), key("operator", .operator), key("order-service", .service, service: "order-service"),
    ])
    func othersRefused(caller: Caller) {
        let refusal = serviceError { try caller.acting(onBehalfOf: Self.alice) }
        #expect(refusal?.code == "auth.forbidden" && refusal?.message.contains(caller.name) == true, "\(String(describing: refusal))")
    }

    @Test("a principal that breaks the rules is request.invalidField naming onBehalfOf", arguments: [
        OnBehalfOf(role: "operator", name: "x"), OnBehalfOf(role: "edge", name: "x"), OnBehalfOf(role: "service", name: "x"),
        OnBehalfOf(role: "phone", name: "x", userId: "alice"), OnBehalfOf(role: "phone", name: "x", deviceId: "d", cafeId: "caffe-macs"),
        OnBehalfOf(role: "kiosk", name: "x"), OnBehalfOf(role: "kitchen", name: "x", userId: "alice", cafeId: "caffe-macs"),
        OnBehalfOf(role: "phone", name: "", deviceId: "d"), OnBehalfOf(role: "phone", name: "a b", deviceId: "d"),
        OnBehalfOf(role: "phone", name: String(repeating: "n", count: 65), deviceId: "d"),
        OnBehalfOf(role: "phone", name: "x", deviceId: String(repeating: "d", count: 65)), OnBehalfOf(role: "phone", name: "x", userId: "a.b", deviceId: "d"),
    ])
    func invalidPrincipals(claimed: OnBehalfOf) {
        let refusal = serviceError { try Self.edge.acting(onBehalfOf: claimed) }
        #expect(refusal?.code == "request.invalidField" && refusal?.message.hasPrefix("onBehalfOf: ") == true, "\(String(describing: refusal))")
    }

    @Test("the op table: the edge as itself reaches health and replay only; on behalf of a principal, what that principal's key reaches")
    func opTable() throws {
        #expect(OpAccess.refusal(op: Op.health, caller: Self.edge) == nil)
        #expect(OpAccess.refusal(op: Op.replay, caller: Self.edge) == nil)
        #expect(OpAccess.refusal(op: Op.replay, caller: try Self.edge.acting(onBehalfOf: Self.alice))?.code == "auth.forbidden",
                "on behalf of a phone the edge is the phone, which may not replay")
        for op in OpAccess.rules.keys where op != Op.health && op != Op.replay {
            #expect(OpAccess.refusal(op: op, caller: Self.edge)?.code == "auth.forbidden", "\(op)")
        }
        let phone = try Self.edge.acting(onBehalfOf: Self.alice)
        #expect(OpAccess.refusal(op: Op.orderPlace, caller: phone) == nil)
        #expect(OpAccess.refusal(op: Op.kdsBump, caller: phone)?.code == "auth.forbidden")
        #expect(OpAccess.viaEdge(Op.orderGet) == [.phone, .kiosk, .kitchen])
        #expect(OpAccess.viaEdge(Op.monitorAdd).isEmpty && OpAccess.viaEdge(Op.health).isEmpty)
    }

    @Test("through a router: the handler sees the principal; a phone key naming one is refused, counted, and its handler never runs")
    func router() throws {
        let router = RequestRouter(logger: silentLogger)
        var seen: [String] = []
        router.on(Op.orderGet, OrderQuery.self) { query, caller in
            seen.append("\(caller.name) \(caller.role?.rawValue ?? "-") via \(caller.via?.name ?? "-")")
            return Empty()
        }
        router.on(Op.health, Empty.self) { _ in Empty() }
        func send(_ caller: Caller, _ op: String, onBehalfOf: OnBehalfOf?) throws -> ServiceError? {
            let reply = router.handle(Wire.encode(Request(op: op, onBehalfOf: onBehalfOf, body: OrderQuery(orderId: "ord-1"))), caller: caller)
            return try Wire.decodeReply(reply, body: Empty.self).error
        }
        #expect(try send(Self.edge, Op.orderGet, onBehalfOf: Self.alice) == nil)
        #expect(seen == ["session-alice phone via edge"])
        #expect(try send(Self.edge, Op.orderGet, onBehalfOf: nil)?.code == "auth.forbidden", "the edge as itself")
        #expect(try send(Self.edge, Op.health, onBehalfOf: nil) == nil)
        let bob = Self.key("phone-bob", .phone, device: "phone-2", user: "bob")
        #expect(try send(bob, Op.orderGet, onBehalfOf: Self.alice)?.code == "auth.forbidden")
        #expect(try send(bob, "no.such.op", onBehalfOf: Self.alice)?.code == "auth.forbidden", "refused before the op is looked at")
        #expect(try send(Self.edge, Op.orderGet, onBehalfOf: OnBehalfOf(role: "operator", name: "x"))?.code == "request.invalidField")
        #expect(seen.count == 1, "no refused request reached the handler")
        #expect(router.refusals == 3 && router.onBehalfOfRefusals == 2)
    }
}
