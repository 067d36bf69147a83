import BusCore
import Testing

/// When the bus cuts one subscriber's connection from what the kernel says of it (issue 28): it
/// stopped reading, or it sends more than subscriptions need. Time is the test's.
struct SubscriberLinksTests {
    typealias Sample = SubscriberLinks.Sample

    @Test("the defaults: cut after 5 s with nothing acknowledged; 64 KiB received at once, then 4 KiB a second")
    func defaults() {
        let limits = SubscriberLinks.Limits()
        #expect(limits.stalledSeconds == 5 && limits.inboundBurstBytes == 65_536 && limits.inboundBytesPerSecond == 4_096)
    }

    @Test("a subscriber with bytes waiting and nothing acknowledged for 5 s is cut as slow; one that acknowledges, or has nothing waiting, is not")
    func slow() {
        var links = SubscriberLinks()
        for id in 1...3 { links.opened(id, now: 0) }
        // 1 stopped reading: bytes wait and the acknowledged count stays.
        // 2 reads slowly: a little is acknowledged every second.
        // 3 is idle: nothing waits.
        for second in 1...4 {
            let now = Double(second)
            #expect(links.observe(1, Sample(queuedBytes: 4_000_000, ackedBytes: 1_000, receivedBytes: 500), now: now) == nil)
            #expect(links.observe(2, Sample(queuedBytes: 4_000_000, ackedBytes: UInt64(second * 10), receivedBytes: 500), now: now) == nil)
            #expect(links.observe(3, Sample(queuedBytes: 0, ackedBytes: 9_999, receivedBytes: 500), now: now) == nil)
        }
        // The first sample set the acknowledged count at 1 s: 5 s later it is cut, and forgotten.
        #expect(links.observe(1, Sample(queuedBytes: 4_000_000, ackedBytes: 1_000, receivedBytes: 500), now: 5.9) == nil)
        #expect(links.observe(1, Sample(queuedBytes: 4_000_000, ackedBytes: 1_000, receivedBytes: 500), now: 6.0) == .slow)
        #expect(links.observe(2, Sample(queuedBytes: 4_000_000, ackedBytes: 60, receivedBytes: 500), now: 6.0) == nil)
        #expect(links.observe(3, Sample(queuedBytes: 0, ackedBytes: 9_999, receivedBytes: 500), now: 60) == nil)
        #expect(links.count == 2)
        #expect(links.observe(1, Sample(queuedBytes: 4_000_000, ackedBytes: 1_000, receivedBytes: 500), now: 7) == nil, "a cut link is no longer judged")
    }

    @Test("a subscriber sending beyond a burst of 64 KiB then 4 KiB a second is cut as a flood; one within it is not")
    func flood() {
        var links = SubscriberLinks()
        links.opened(1, now: 0)
        links.opened(2, now: 0)
        #expect(links.observe(1, Sample(queuedBytes: 0, ackedBytes: 0, receivedBytes: 60_000), now: 0.05) == nil)
        #expect(links.observe(1, Sample(queuedBytes: 0, ackedBytes: 0, receivedBytes: 70_000), now: 0.10) == .subscriptionFlood)
        // Within the rate for a minute: 4 KiB a second.
        for second in 1...60 {
            #expect(links.observe(2, Sample(queuedBytes: 0, ackedBytes: 0, receivedBytes: UInt64(second * 4_000)), now: Double(second)) == nil)
        }
        #expect(links.count == 1)
        links.closed(2)
        #expect(links.count == 0)
    }
}
