@testable import EdgeServer
import Foundation
import Messages
import Policy
import ServiceRuntime
import Testing
import TestSupport

/// What the edge's key may ask of a service for its streams: `replay` of the order, notify,
/// kitchen and menu streams its consumer catches up on (the last two for the café screens), through a real request server's router and outbox. Every
/// other stream, and every other role that is not a service's or an operator's, is refused.
@Suite("streams: the edge's replay grant")
struct StreamsGrantsTests {
    static func key(_ name: String, _ role: Role, device: String? = nil, cafe: String? = nil) -> Caller {
        Caller(principal: Principal(name: name, role: role, publicKey: String(repeating: "e", count: 40), service: role == .service ? name : nil,
                                    deviceId: device, userId: nil, cafeId: cafe))
    }

    func replay(_ router: RequestRouter, _ stream: String, as caller: Caller, onBehalfOf: OnBehalfOf? = nil) throws -> ServiceError? {
        let frame = Wire.encode(Request(op: Op.replay, onBehalfOf: onBehalfOf, body: ReplayRequest(stream: stream, fromSeq: 1, limit: 10)))
        return try Wire.decodeReply(router.handle(frame, caller: caller), body: ReplayReply.self).error
    }

    @Test("the edge replays order, notify, kitchen and menu; not region, device or sighting; not on behalf of anyone")
    func edge() throws {
        let harness = try StreamsHarness()
        let router = harness.host.requests.router
        let edge = Self.key("edge", .edge)
        for stream in ["order", "notify", "kitchen", "menu"] {
            #expect(try replay(router, stream, as: edge) == nil, "\(stream)")
        }
        for stream in ["region", "device", "sighting"] {
            #expect(try replay(router, stream, as: edge)?.code == "auth.forbidden", "\(stream)")
        }
        let phone = OnBehalfOf.phone("phone-alice", userId: "alice", deviceId: "dev-1")
        #expect(try replay(router, "order", as: edge, onBehalfOf: phone)?.code == "auth.forbidden")
    }

    @Test("services and operators replay any stream; a phone, kiosk, kitchen or gateway none")
    func others() throws {
        let harness = try StreamsHarness()
        let router = harness.host.requests.router
        #expect(try replay(router, "region", as: Self.key("notification-service", .service)) == nil)
        #expect(try replay(router, "region", as: Self.key("operator", .operator)) == nil)
        for caller in [Self.key("phone-1", .phone, device: "d1"), Self.key("kiosk-macs", .kiosk, cafe: "caffe-macs"),
                       Self.key("kitchen-macs", .kitchen, cafe: "caffe-macs"), Self.key("gateway-1", .gateway)] {
            #expect(try replay(router, "order", as: caller)?.code == "auth.forbidden", "\(caller.name)")
        }
    }

    @Test("the rule itself: only the edge is held to streams")
    func rule() {
        #expect(ReplayAccess.refusal(stream: "region", caller: Self.key("edge", .edge))?.code == ErrorCode.forbidden.rawValue)
        #expect(ReplayAccess.refusal(stream: "order", caller: Self.key("edge", .edge)) == nil)
        #expect(ReplayAccess.refusal(stream: "region", caller: Self.key("order-service", .service)) == nil)
    }
}
