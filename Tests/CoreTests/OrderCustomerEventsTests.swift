import Messages
import OrderCore
import Testing

@Suite("Order customer events")
struct OrderCustomerEventsTests {
    typealias F = OrderFixtures

    static func event(monitor: String = "campus", identifier: String = "caffe-macs", state: ConditionState = .satisfied) -> RegionEvent {
        RegionEvent(monitor: monitor, identifier: identifier, deviceId: "phone-1", state: state, refinement: nil, flags: [], date: .at(-60))
    }

    @Test("only the campus monitor's satisfied conditions are arrivals", arguments: [
        (event(), "caffe-macs" as String?),
        (event(state: .unsatisfied), nil),
        (event(monitor: "wayfinding"), nil),
    ])
    func arrivalCafe(event: RegionEvent, cafe: String?) {
        #expect(OrderCustomerEvents.arrivalCafe(event) == cafe)
    }

    @Test("a campus approach-area decision says whether the phone is known outside the café's approach area", arguments: [
        (event(identifier: "caffe-macs.approach", state: .unsatisfied), "caffe-macs", true),
        (event(identifier: "caffe-macs.approach", state: .satisfied), "caffe-macs", false),
        (event(identifier: "caffe-macs.approach", state: .unknown), "caffe-macs", false),
        (event(identifier: "caffe-macs.area", state: .unsatisfied), nil, false),
        (event(identifier: "caffe-macs", state: .unsatisfied), nil, false),
        (event(identifier: ".approach", state: .unsatisfied), nil, false),
        (event(monitor: "wayfinding", identifier: "caffe-macs.approach", state: .unsatisfied), nil, false),
    ] as [(RegionEvent, String?, Bool)])
    func approachDecision(event: RegionEvent, cafe: String?, outside: Bool) {
        let decision = OrderCustomerEvents.approachDecision(event)
        #expect(decision?.cafeId == cafe && (decision?.outside ?? false) == outside)
    }

    @Test("an arrival marks each open order once, with an order.arrived event and no audit row")
    func arrival() {
        let orders = [F.order(.accepted, id: "ord-1"), F.order(.ready, id: "ord-2", customerHere: true), F.order(.preparing, id: "ord-3")]
        let effects = OrderCustomerEvents.arrival(Self.event(), orders: orders, now: t0)
        #expect(effects.map(\.order.orderId) == ["ord-1", "ord-3"])
        #expect(effects.allSatisfy { $0.order.customerHere && $0.audit.isEmpty && $0.at == t0 })
        #expect(effects.map { $0.order.state } == [.accepted, .preparing], "the state does not change")
        let event = effects.first?.events.first
        #expect(event?.type == .orderArrived && event?.topic == "order.arrived.caffe-macs.")
        #expect(event?.event.reason == "customer entered Caffè Macs" && event?.event.at == .at(-60) && event?.event.previous == .accepted)
    }

    @Test("claim fields", arguments: [
        (ClaimOrdersRequest(deviceId: "clip-phone", userId: "dana"), nil as String?),
        (ClaimOrdersRequest(deviceId: "clip phone", userId: "dana"), "request.invalidField"),
        (ClaimOrdersRequest(deviceId: "clip-phone", userId: ""), "request.invalidField"),
    ])
    func claimFields(request: ClaimOrdersRequest, code: String?) {
        #expect(errorCode { () throws(ServiceError) in _ = try OrderCustomerEvents.checkClaim(request) } == code)
    }

    @Test("signing in moves the guest's App Clip orders only, each audited, announced and remembered as a café used before")
    func claim() {
        let orders = [F.order(.accepted, id: "clip-1", channel: .appClip, userId: nil), F.order(.ready, id: "kiosk-1", channel: .kiosk, userId: nil),
                      F.order(.pickedUp, id: "clip-2", channel: .appClip, userId: nil), F.order(.accepted, id: "clip-3", channel: .appClip, userId: "eve")]
        let effects = OrderCustomerEvents.claim(userId: "dana", orders: orders, now: t0)
        #expect(effects.map(\.order.orderId) == ["clip-1", "clip-2"])
        #expect(effects.allSatisfy { $0.order.userId == "dana" })
        let first = effects.first
        #expect(first?.audit == [OrderAudit(orderId: "clip-1", from: .accepted, to: .accepted, actor: .customer,
                                            reason: "App Clip guest signed in as dana", at: t0)])
        #expect(first?.events.map(\.topic) == ["order.claimed.caffe-macs."] && first?.events.first?.event.reason == "moved to the account dana")
        #expect(first?.lastCafe == LastCafe(userId: "dana", cafeId: "caffe-macs", at: .at(-1800), keepsNewer: true))
    }
}
