@testable import LoadTestKit
import Testing

/// `load-test run`'s arrivals: what each satisfied event is matched with, and the latency split
/// where region-monitor published it.
struct ArrivalTrackerTests {
    @Test("an arrival's latency runs from its batch's intended send; the split adds up to it, on both sides of the publish")
    func splitAtPublish() {
        let tracker = ArrivalTracker(measureFrom: 1, timeout: 5)
        tracker.expect(Arrival(device: 7, place: 2, certain: true), intended: 2.000)
        tracker.satisfied(device: 7, place: 2, now: 2.010, published: 2.004)
        #expect(tracker.counts.seen == 1)
        #expect(tracker.outstandingCertain == 0)
        #expect(tracker.latency.count == 1 && tracker.toPublished.count == 1 && tracker.fromPublished.count == 1)
        // Histogram buckets keep three significant digits.
        #expect(abs(Double(tracker.latency.max) - 10_000) <= 10)
        #expect(abs(Double(tracker.toPublished.max) - 4_000) <= 4)
        #expect(abs(Double(tracker.fromPublished.max) - 6_000) <= 6)
    }

    @Test("without a publish time only the whole latency is kept; before the window nothing is; an event nobody expected is counted, not measured")
    func unsplitAndUnmeasured() {
        let tracker = ArrivalTracker(measureFrom: 1, timeout: 5)
        tracker.expect(Arrival(device: 1, place: 0, certain: true), intended: 0.5)
        tracker.satisfied(device: 1, place: 0, now: 0.6, published: 0.55)
        tracker.expect(Arrival(device: 2, place: 0, certain: true), intended: 1.5)
        tracker.satisfied(device: 2, place: 0, now: 1.6)
        tracker.satisfied(device: 3, place: 0, now: 1.7, published: 1.65)
        #expect(tracker.counts.seen == 2)
        #expect(tracker.counts.unexpected == 1)
        #expect(tracker.latency.count == 1)
        #expect(tracker.toPublished.count == 0 && tracker.fromPublished.count == 0)
    }
}
