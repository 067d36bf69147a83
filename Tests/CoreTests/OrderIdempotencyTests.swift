import Foundation
import Messages
import OrderCore
import Testing

@Suite("Order idempotency")
struct OrderIdempotencyTests {
    @Test("a retry gets the first reply, a different order under the same key is refused, a new key places")
    func replay() {
        let request = OrderFixtures.place(.kiosk)
        let canonical = OrderIdempotency.canonical(request)
        let stored = IdempotencyRecord(key: request.idempotencyKey, request: canonical, reply: Data("first".utf8), createdAt: t0)
        #expect((try? OrderIdempotency.replay(stored, canonical: canonical)) == Data("first".utf8))
        #expect((try? OrderIdempotency.replay(nil, canonical: canonical)) == .some(nil))
        var other = request
        other.items = [OrderItemRequest(itemId: "fries", quantity: 1)]
        #expect(errorCode { () throws(ServiceError) in try OrderIdempotency.replay(stored, canonical: OrderIdempotency.canonical(other)) } == "order.idempotencyConflict")
    }

    @Test("the canonical form does not depend on how the request was written")
    func canonical() throws {
        let a = try JSONDecoder().decode(PlaceOrderRequest.self, from: Data(#"{"idempotencyKey":"key-00000001","channel":"kiosk","cafeId":"caffe-macs","reservationId":"r","items":[{"itemId":"burger","quantity":1}],"locale":"en_US"}"#.utf8))
        let b = try JSONDecoder().decode(PlaceOrderRequest.self, from: Data(#"{"locale":"en_US","items":[{"quantity":1,"itemId":"burger"}],"reservationId":"r","cafeId":"caffe-macs","channel":"kiosk","idempotencyKey":"key-00000001"}"#.utf8))
        #expect(OrderIdempotency.canonical(a) == OrderIdempotency.canonical(b))
    }

    @Test("keys are kept 48 hours")
    func cutoff() {
        #expect(OrderIdempotency.cutoff(now: t0) == t0.adding(seconds: -48 * 3600))
    }
}
