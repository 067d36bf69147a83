import BusCore
import Testing

/// The bus's record of who holds which subscription (deployed mode), and what it forwards to the
/// publishers: a prefix goes upstream with its first allowed holder and is withdrawn only when
/// no allowed holder can be left.
@Suite("Bus subscription ledger")
struct SubscriptionLedgerTests {
    let order = Array("order.".utf8)

    @Test("several subscribers to one prefix: subscribed upstream once, withdrawn when the last leaves")
    func severalSubscribers() {
        var ledger = SubscriptionLedger()
        #expect(ledger.subscribed(order, by: "1", allowed: true) == .subscribe)
        #expect(ledger.subscribed(order, by: "2", allowed: true) == nil)
        #expect(ledger.unsubscribed(order, by: "1") == nil, "session 2 still holds it")
        #expect(ledger.released(order) == .unsubscribe, "session 2 ended")
        #expect(ledger.upstream.isEmpty && ledger.totalHoldings == 0)
    }

    @Test("a refused subscription never goes upstream; its release never withdraws an allowed one")
    func refusedHoldings() {
        var ledger = SubscriptionLedger()
        #expect(ledger.subscribed(order, by: "service", allowed: true) == .subscribe)
        #expect(ledger.subscribed(order, by: "phone", allowed: false) == nil)
        // One of the two ended, unknown which: the refused one is taken first, upstream stays.
        #expect(ledger.released(order) == nil)
        #expect(ledger.allowedHoldings(of: order) == 1)
        #expect(ledger.released(order) == .unsubscribe)
    }

    @Test("an unsubscription for what the connection does not hold changes nothing (libzmq ignores it too)")
    func foreignUnsubscribe() {
        var ledger = SubscriptionLedger()
        #expect(ledger.subscribed(order, by: "service", allowed: true) == .subscribe)
        #expect(ledger.unsubscribed(order, by: "phone") == nil)
        #expect(ledger.unsubscribed(Array("heartbeat.".utf8), by: "phone") == nil)
        #expect(ledger.upstream == [order])
        // A second subscribe from one connection is one holding, as in libzmq's set.
        #expect(ledger.subscribed(order, by: "service", allowed: true) == nil)
        #expect(ledger.unsubscribed(order, by: "service") == .unsubscribe)
    }

    @Test("a release the ledger cannot attribute keeps the allowed count at or above the truth, whichever connection ended", arguments: 0..<3)
    func releaseOrder(ended: Int) {
        // Three connections: two allowed, one refused; `ended` ends; libzmq says only "one left".
        var ledger = SubscriptionLedger()
        let allowed = [true, true, false]
        for (i, ok) in allowed.enumerated() { _ = ledger.subscribed(order, by: "\(i)", allowed: ok) }
        _ = ledger.released(order)
        let truth = allowed.enumerated().filter { $0.offset != ended && $0.element }.count
        #expect(ledger.allowedHoldings(of: order) >= truth)
        #expect(ledger.upstream.contains(order))
    }

    @Test("a reset withdraws everything upstream")
    func reset() {
        var ledger = SubscriptionLedger()
        _ = ledger.subscribed(order, by: "1", allowed: true)
        _ = ledger.subscribed(Array("heartbeat.".utf8), by: "1", allowed: true)
        #expect(Set(ledger.reset()) == [order, Array("heartbeat.".utf8)])
        #expect(ledger.upstream.isEmpty && ledger.totalHoldings == 0)
        #expect(ledger.released(order) == nil)
    }

    @Test("the ledger counts each holder's allowed prefixes and their bytes, however they end: unsubscribed, released, reset")
    func heldByHolder() {
        var ledger = SubscriptionLedger()
        _ = ledger.subscribed(Array("order.".utf8), by: "1", allowed: true)
        _ = ledger.subscribed(Array("region.".utf8), by: "1", allowed: true)
        _ = ledger.subscribed(Array("kitchen.".utf8), by: "1", allowed: false)
        // A second subscribe from the same connection adds nothing.
        _ = ledger.subscribed(Array("order.".utf8), by: "1", allowed: true)
        #expect(ledger.held(by: "1") == (2, 13))
        #expect(ledger.holding(Array("kitchen.".utf8), by: "1") == false && ledger.holding(Array("order.".utf8), by: "2") == nil)
        _ = ledger.unsubscribed(Array("order.".utf8), by: "1")
        #expect(ledger.held(by: "1") == (1, 7))
        _ = ledger.released(Array("region.".utf8))
        #expect(ledger.held(by: "1") == (0, 0))
        _ = ledger.subscribed(Array("order.".utf8), by: "2", allowed: true)
        _ = ledger.reset()
        #expect(ledger.held(by: "2") == (0, 0))
    }
}
