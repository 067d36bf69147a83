import BusCore
import Testing

/// What one subscriber connection may hold on the bus and how fast it may change it (issue 28).
struct SubscriptionBudgetTests {
    static func prefix(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("the defaults: 256-byte prefixes, 64 held of 4 KiB together, a burst of 100 changes then 10 a second")
    func defaults() {
        let limits = SubscriptionBudget.Limits()
        #expect(limits.maxPrefixBytes == 256 && limits.maxHeld == 64 && limits.maxHeldBytes == 4_096 && limits.burst == 100 && limits.perSecond == 10)
    }

    @Test("a prefix too long, one too many held, or too many bytes held is refused with its reason")
    func holdings() {
        var budget = SubscriptionBudget()
        #expect(budget.subscribe(Self.prefix("order."), by: "s1", held: 0, heldBytes: 0, now: 0) == nil)
        #expect(budget.subscribe([UInt8](repeating: 65, count: 257), by: "s1", held: 0, heldBytes: 0, now: 0) == .prefixTooLong)
        #expect(budget.subscribe([UInt8](repeating: 65, count: 256), by: "s1", held: 0, heldBytes: 0, now: 0) == nil)
        #expect(budget.subscribe(Self.prefix("order."), by: "s1", held: 64, heldBytes: 100, now: 0) == .tooMany)
        #expect(budget.subscribe(Self.prefix("order."), by: "s1", held: 63, heldBytes: 4_091, now: 0) == .tooManyBytes)
        #expect(budget.subscribe(Self.prefix("order."), by: "s1", held: 63, heldBytes: 4_090, now: 0) == nil)
    }

    @Test("churn is bounded per connection: 100 changes at once, then 10 a second; refused attempts spend too; others are not held back")
    func rate() {
        var budget = SubscriptionBudget()
        for i in 0..<100 { #expect(budget.subscribe(Self.prefix("p\(i)."), by: "s1", held: 0, heldBytes: 0, now: 0) == nil) }
        #expect(budget.subscribe(Self.prefix("q."), by: "s1", held: 0, heldBytes: 0, now: 0.05) == .tooFast)
        #expect(budget.subscribe(Self.prefix("q."), by: "s2", held: 0, heldBytes: 0, now: 0.05) == nil, "another connection has its own")
        // A tenth of a second gives one change back.
        #expect(budget.subscribe(Self.prefix("q."), by: "s1", held: 0, heldBytes: 0, now: 0.15) == nil)
        #expect(budget.subscribe(Self.prefix("r."), by: "s1", held: 0, heldBytes: 0, now: 0.15) == .tooFast)
        // The account is kept while its burst is not back, and forgotten after.
        budget.prune(now: 5)
        #expect(budget.accountCount == 1)
        budget.prune(now: 11)
        #expect(budget.accountCount == 0)
    }
}
