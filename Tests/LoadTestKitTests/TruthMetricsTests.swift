@testable import LoadTestKit
import ServiceRuntime
import Testing

/// `load-test truth`'s measurements on hand-made timelines.
struct TruthMetricsTests {
    typealias Timeline = [(t: Double, cafe: String?)]

    @Test("switches: a change of named café, across gaps of none", arguments: [
        (cafes: [String?](), switches: 0),
        (["a", "a", nil, "a"], 0),
        (["a", "b"], 1),
        (["a", nil, "b"], 1),
        (["a", "b", "a", "b"], 3),
        ([nil, nil, "b"], 0),
    ])
    func switches(cafes: [String?], switches: Int) {
        let timeline: Timeline = cafes.enumerated().map { (Double($0), $1) }
        #expect(TruthMetrics.switches(timeline) == switches)
    }

    @Test("withdrawals: a named café followed by none, however often; a switch is not one", arguments: [
        (cafes: [String?](), withdrawals: 0),
        (["a", "b", "a"], 0),
        (["a", nil, "a", nil, nil, "a"], 2),
        ([nil, "a", nil], 1),
        (["a", nil, "b"], 1),
    ])
    func withdrawals(cafes: [String?], withdrawals: Int) {
        let timeline: Timeline = cafes.enumerated().map { (Double($0), $1) }
        #expect(TruthMetrics.withdrawals(timeline) == withdrawals)
    }

    @Test("wrong answers: a café named that is not the truth; none named is not wrong; no truth judges nothing")
    func wrongAnswers() {
        let timeline: Timeline = [(0, "a"), (1, "b"), (2, nil), (3, "b"), (4, "a"), (5, "b")]
        #expect(TruthMetrics.wrongAnswers(timeline) { $0 < 4.5 ? "a" : nil } == 2)
        #expect(TruthMetrics.wrongAnswers(timeline) { _ in nil } == 0)
        #expect(TruthMetrics.wrongAnswers(timeline) { _ in "c" } == 5)
    }

    @Test("naming latency: from the arrival to the first naming of the café, 0 when already named")
    func naming() {
        let timeline: Timeline = [(1, "b"), (4, nil), (6.5, "a"), (9, "b")]
        #expect(TruthMetrics.namingLatency(timeline, cafe: "a", arrival: 5) == 1.5)
        #expect(TruthMetrics.namingLatency(timeline, cafe: "b", arrival: 2) == 0)
        #expect(TruthMetrics.namingLatency(timeline, cafe: "b", arrival: 5) == 4)
        #expect(TruthMetrics.namingLatency(timeline, cafe: "c", arrival: 0) == nil)
    }

    @Test("flaps: unsatisfied after satisfied, per condition; unknown between is no flap, and is no excuse")
    func flaps() {
        let events: [(t: Double, identifier: String, state: String)] = [
            (0, "x.area", "unsatisfied"), (1, "x.area", "satisfied"), (2, "x.area", "unknown"), (3, "x.area", "satisfied"),
            (4, "x.area", "unsatisfied"), (5, "y.area", "satisfied"), (6, "y.area", "unsatisfied"), (7, "x.area", "satisfied"),
        ]
        #expect(TruthMetrics.flaps(events, identifiers: ["x.area"]) == 1)
        #expect(TruthMetrics.flaps(events, identifiers: ["x.area", "y.area"]) == 2)
        #expect(TruthMetrics.eventLatency(events, identifier: "x.area", state: "satisfied", since: 1.5) == 1.5)
        #expect(TruthMetrics.eventLatency(events, identifier: "z", state: "satisfied", since: 0) == nil)
    }

    @Test("evidence: the café of the beacon whose mean RSSI over the span is highest; a far beacon of the same café does not pull it down")
    func favoured() {
        let readings = [Reading(t: 0, beacon: 0, cafe: "coffee", rssi: -60), Reading(t: 0, beacon: 1, cafe: "macs", rssi: -70),
                        Reading(t: 0, beacon: 2, cafe: "macs", rssi: -90), Reading(t: 1, beacon: 1, cafe: "macs", rssi: -52),
                        Reading(t: 2, beacon: 0, cafe: "coffee", rssi: -66), Reading(t: 5, beacon: 1, cafe: "macs", rssi: -40)]
        // Over [0, 3): coffee's beacon −63, macs' counter −61: macs, though its far beacon is weak.
        #expect(TruthMetrics.favoured(readings, since: 0, seconds: 3) == "macs")
        // Over [0, 1): coffee −60 against macs −70.
        #expect(TruthMetrics.favoured(readings, since: 0, seconds: 1) == "coffee")
        // Readings outside the span do not count; nothing heard favours nothing.
        #expect(TruthMetrics.favoured(readings, since: 2, seconds: 3) == "coffee")
        #expect(TruthMetrics.favoured(readings, since: 10, seconds: 3) == nil)
    }

    @Test("quantiles, nearest rank")
    func quantiles() {
        #expect(TruthMetrics.quantile([], 0.5) == nil)
        #expect(TruthMetrics.quantile([3, 1, 2], 0.5) == 2)
        #expect(TruthMetrics.quantile((1...100).map(Double.init), 0.95) == 95)
    }

    @Test("--quick shrinks only what was not given; the noise flags reach the model")
    func quickSettings() throws {
        let quick = TruthCommand.settings(try Configuration(program: "load-test truth", specs: TruthCommand.specs, arguments: ["--quick", "--phones", "7"], environment: [:]))
        #expect(quick.phones == 7 && quick.duration == 25 && quick.exitSeconds == 5)
        let full = TruthCommand.settings(try Configuration(program: "load-test truth", specs: TruthCommand.specs, arguments: ["--sigma", "8", "--seed", "3"], environment: [:]))
        #expect(full.phones == 200 && full.duration == 150 && full.exitSeconds == 30 && full.seed == 3)
        #expect(full.noise.sigma == 8 && full.noise.missRate == 0.2 && full.measuredPower == -59 && full.gps.accuracy == 5...65)
    }
}
