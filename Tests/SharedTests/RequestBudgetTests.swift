import Foundation
import Messages
import Policy
import ServiceRuntime
import Testing

/// Each principal's requests per second, by role (issue 28).
struct RequestBudgetTests {
    static let phone = Caller(principal: Principal(name: "phone-ann", role: .phone, publicKey: "", deviceId: "D1", userId: "ann"))
    static let otherPhone = Caller(principal: Principal(name: "phone-bob", role: .phone, publicKey: "", deviceId: "D2", userId: "bob"))
    static let service = Caller(principal: Principal(name: "order-service", role: .service, publicKey: ""))

    @Test("a phone has 30 requests at once, then 10 a second, and is told when to try again; another phone is not held back")
    func phoneBucket() {
        var budget = RequestBudget()
        for _ in 0..<30 { #expect(budget.spend(Self.phone, now: 0) == nil) }
        #expect(budget.spend(Self.phone, now: 0) == 100, "one request every 100 ms")
        #expect(budget.spend(Self.otherPhone, now: 0) == nil)
        #expect(budget.spend(Self.phone, now: 0.05) == 50)
        #expect(budget.spend(Self.phone, now: 0.1) == nil)
    }

    @Test("services, gateways, the edge as itself and the developer are not limited")
    func unlimited() {
        var budget = RequestBudget()
        for caller in [Self.service, Caller.developer, Caller(principal: Principal(name: "edge", role: .edge, publicKey: "")),
                       Caller(principal: Principal(name: "gw", role: .gateway, publicKey: ""))] {
            for _ in 0..<1_000 { #expect(budget.spend(caller, now: 0) == nil) }
        }
        #expect(budget.accountCount == 0)
    }

    @Test("an account whose burst is back is forgotten")
    func prune() {
        var budget = RequestBudget()
        _ = budget.spend(Self.phone, now: 0)
        budget.prune(now: 0.05)
        #expect(budget.accountCount == 1)
        budget.prune(now: 0.1)
        #expect(budget.accountCount == 0)
    }

    @Test("through the router: over the budget is request.rateLimited with retryAfterMs, nothing is run, health is never limited")
    func router() throws {
        let router = RequestRouter(logger: Logger(service: "test", instance: "test", minimum: .error))
        var now = 0.0
        router.clock = { now }
        var runs = 0
        router.on(Op.menuGet, Empty.self) { (_: Empty, _: Caller) -> Empty in
            runs += 1
            return Empty()
        }
        router.on(Op.health, Empty.self) { (_: Empty) -> Empty in Empty() }
        let menu = Wire.encode(Request(op: Op.menuGet, body: Empty()))
        for _ in 0..<30 { _ = router.handle(menu, caller: Self.phone) }
        let refused = try Wire.decodeReply(router.handle(menu, caller: Self.phone), body: Empty.self)
        #expect(refused.error?.code == "request.rateLimited" && refused.error?.details?["retryAfterMs"] == "100", "\(String(describing: refused.error))")
        #expect(runs == 30 && router.rateLimited == 1)
        let health = try Wire.decodeReply(router.handle(Wire.encode(Request(op: Op.health, body: Empty())), caller: Self.phone), body: Empty.self)
        #expect(health.error?.code != "request.rateLimited")
        now = 0.1
        #expect(try Wire.decodeReply(router.handle(menu, caller: Self.phone), body: Empty.self).ok)
        // Plain mode: the loopback developer's connection is not limited, whoever it acts for.
        let acting = Wire.encode(Request(op: Op.menuGet, onBehalfOf: .phone("phone-ann", userId: "ann", deviceId: "D1"), body: Empty()))
        for _ in 0..<100 { #expect(try Wire.decodeReply(router.handle(acting, caller: .developer), body: Empty.self).error?.code != "request.rateLimited") }
    }
}
