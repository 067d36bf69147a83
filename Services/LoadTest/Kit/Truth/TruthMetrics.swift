import Foundation

/// What one phone saw of the platform during a truth run, on the run's clock (seconds).
public struct PhoneObservation: Sendable, Equatable {
    /// `region.nearest` messages: the café of the named beacon (nil: no nearest beacon).
    public var nearest: [(t: Double, cafe: String?)] = []
    /// `nearest.get` polls: the café answered.
    public var polls: [(t: Double, cafe: String?)] = []
    /// `region.nearest` messages as the cafés they hold: the named café, or the candidates while
    /// none is named (empty: nothing near).
    public var held: [(t: Double, cafes: [String])] = []
    /// `region.event` messages of the campus monitor: condition identifier and state.
    public var events: [(t: Double, identifier: String, state: String)] = []

    public init() {}

    public static func == (a: Self, b: Self) -> Bool {
        a.nearest.elementsEqual(b.nearest) { $0 == $1 } && a.polls.elementsEqual(b.polls) { $0 == $1 }
            && a.held.elementsEqual(b.held) { $0.t == $1.t && $0.cafes == $1.cafes }
            && a.events.elementsEqual(b.events) { $0 == $1 }
    }
}

/// One advertisement a truth phone reported: run time (s), the beacon's index on its floor plan,
/// its café and the RSSI sent.
public struct Reading: Sendable, Equatable {
    public var t: Double
    public var beacon: Int
    public var cafe: String
    public var rssi: Int

    public init(t: Double, beacon: Int, cafe: String, rssi: Int) {
        self.t = t
        self.beacon = beacon
        self.cafe = cafe
        self.rssi = rssi
    }
}

/// The pure measurements of `load-test truth` over hand-made or observed timelines.
public enum TruthMetrics {
    /// How many times the named café changed from one café to another (gaps with no café named
    /// do not end a naming: A, nil, B is one change; A, nil, A none).
    public static func switches(_ timeline: [(t: Double, cafe: String?)]) -> Int {
        var last: String?
        var count = 0
        for (_, cafe) in timeline {
            guard let cafe else { continue }
            if let last, last != cafe { count += 1 }
            last = cafe
        }
        return count
    }

    /// Answers that named a café other than the truth at their time (a nil truth judges nothing;
    /// a nil answer is not wrong, only late).
    public static func wrongAnswers(_ timeline: [(t: Double, cafe: String?)], truth: (Double) -> String?) -> Int {
        timeline.filter { answer in
            guard let cafe = answer.cafe, let right = truth(answer.t) else { return false }
            return cafe != right
        }.count
    }

    /// Seconds from `arrival` until `timeline` names `cafe` (0 when it already did at the
    /// arrival); nil when it never does.
    public static func namingLatency(_ timeline: [(t: Double, cafe: String?)], cafe: String, arrival: Double) -> Double? {
        if timeline.last(where: { $0.t <= arrival })?.cafe == cafe { return 0 }
        return timeline.first { $0.t > arrival && $0.cafe == cafe }.map { $0.t - arrival }
    }

    /// Seconds from `arrival` until the answers hold `cafe`, named or among the candidates (0 when
    /// they already did at the arrival); nil when they never do.
    public static func holdingLatency(_ timeline: [(t: Double, cafes: [String])], cafe: String, arrival: Double) -> Double? {
        if timeline.last(where: { $0.t <= arrival })?.cafes.contains(cafe) == true { return 0 }
        return timeline.first { $0.t > arrival && $0.cafes.contains(cafe) }.map { $0.t - arrival }
    }

    /// Seconds from `since` until the first event of `identifier` in `state` after it; nil when none.
    public static func eventLatency(_ events: [(t: Double, identifier: String, state: String)], identifier: String, state: String, since: Double) -> Double? {
        events.first { $0.t >= since && $0.identifier == identifier && $0.state == state }.map { $0.t - since }
    }

    /// Flaps of the conditions `identifiers`: each time one becomes unsatisfied after it was satisfied.
    public static func flaps(_ events: [(t: Double, identifier: String, state: String)], identifiers: Set<String>) -> Int {
        var satisfied: Set<String> = []
        var count = 0
        for event in events where identifiers.contains(event.identifier) {
            if event.state == "satisfied" {
                satisfied.insert(event.identifier)
            } else if event.state == "unsatisfied", satisfied.remove(event.identifier) != nil {
                count += 1
            }
        }
        return count
    }

    /// The café the readings themselves favour over `seconds` from `since`: the café of the beacon
    /// whose mean reported RSSI in that span is highest (nil when nothing was heard). This is the
    /// evidence any rule deciding from RSSI alone has at that moment: when it favours another café
    /// than the truth, a rule that names a café by then is wrong unless it guesses against its data.
    public static func favoured(_ readings: [Reading], since: Double, seconds: Double) -> String? {
        var sums: [Int: (cafe: String, total: Double, count: Int)] = [:]
        for r in readings where r.t >= since && r.t < since + seconds {
            let s = sums[r.beacon] ?? (r.cafe, 0, 0)
            sums[r.beacon] = (s.cafe, s.total + Double(r.rssi), s.count + 1)
        }
        let best = sums.max { a, b in
            let x = a.value.total / Double(a.value.count), y = b.value.total / Double(b.value.count)
            return x < y || (x == y && a.key > b.key)
        }
        return best?.value.cafe
    }

    /// How often a named café stopped being named without another being named in its place (the
    /// answer went back to candidates or none): the cost of letting the latest readings end a naming.
    public static func withdrawals(_ timeline: [(t: Double, cafe: String?)]) -> Int {
        zip(timeline, timeline.dropFirst()).filter { $0.0.cafe != nil && $0.1.cafe == nil }.count
    }

    /// The `q` quantile (0…1) of `values`, nearest rank; nil when empty.
    public static func quantile(_ values: [Double], _ q: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))]
    }
}

/// A figure of the report and, when the issue sets one, its target and whether it was met.
public struct TruthVerdict: Codable, Sendable, Equatable {
    public var name: String
    public var value: String
    public var target: String
    /// nil: the figure has no target (shown for reading, judged nowhere).
    public var met: Bool?

    public var verdict: String { met.map { $0 ? "met" : "MISSED" } ?? "-" }
}
