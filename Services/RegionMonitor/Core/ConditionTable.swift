/// Every condition, compiled once into what the hot path tests and filed where each path finds
/// it: beacon matchers and circles for every device, conditions scoped to one device, and those
/// that assume a state (a new device starts with their records). Records refer to a condition by
/// its entry number; a removed condition's number is reused.
final class ConditionTable {
    /// A condition as the engine evaluates it.
    enum Kind {
        case beacon(Matcher, exitMilliseconds: Int64)
        case circle(Circle)
    }

    /// One condition with what the engine needs of it.
    struct Entry {
        var spec: ConditionSpec
        /// Increases with every add: events of one device come out in this order.
        var order: Int
        var kind: Kind
    }

    private var entries: [Entry?] = []
    private var freeEntries: [Int] = []
    private var nextOrder = 0
    /// Beacon conditions for every device, as the sighting path walks them.
    private(set) var beaconMatchers: [(entry: Int, matcher: Matcher, exit: Int64)] = []
    /// Circles for every device.
    private(set) var circleEntries: [Int] = []
    /// Conditions for every device that assume a state: a new device starts with their records.
    private(set) var assumedEntries: [Int] = []
    /// Conditions for one device, by device id.
    private var scoped: [String: [Int]] = [:]
    /// Heard beacons are kept this long: the longest exit timeout, or the freshness if longer.
    private(set) var heardMilliseconds: Int64
    /// A sighting makes a deadline at most this far ahead: the nearest freshness, or the
    /// shortest exit timeout if shorter.
    private(set) var soonestDeadlineMilliseconds: Int64
    private let freshnessMilliseconds: Int64

    /// No conditions yet: heard beacons are kept for the nearest freshness.
    init(freshnessMilliseconds: Int64) {
        self.freshnessMilliseconds = freshnessMilliseconds
        heardMilliseconds = freshnessMilliseconds
        soonestDeadlineMilliseconds = freshnessMilliseconds
    }

    /// The condition under an entry number; nil once removed.
    subscript(entry: Int) -> Entry? {
        _read { yield entries[entry] }
    }

    /// The conditions for one device only; nil when it has none (no lookup while no device has any).
    func scoped(to deviceId: String) -> [Int]? {
        scoped.isEmpty ? nil : scoped[deviceId]
    }

    /// Files a compiled condition. Returns its entry number.
    func insert(_ spec: ConditionSpec, kind: Kind) -> Int {
        let e: Int
        if let free = freeEntries.popLast() {
            e = free
        } else {
            e = entries.count
            entries.append(nil)
        }
        entries[e] = Entry(spec: spec, order: nextOrder, kind: kind)
        nextOrder += 1
        if let device = spec.deviceId {
            scoped[device, default: []].append(e)
        } else {
            switch kind {
            case .beacon(let matcher, let exit): beaconMatchers.append((e, matcher, exit))
            case .circle: circleEntries.append(e)
            }
            if spec.assuming != nil { assumedEntries.append(e) }
        }
        if case .beacon(_, let exit) = kind {
            heardMilliseconds = max(heardMilliseconds, exit)
            soonestDeadlineMilliseconds = min(soonestDeadlineMilliseconds, exit)
        }
        return e
    }

    /// Takes a condition out of every list; its number is free for reuse. Returns what it was.
    func remove(_ e: Int) -> Entry? {
        guard let entry = entries[e] else { return nil }
        if let device = entry.spec.deviceId {
            scoped[device]?.removeAll { $0 == e }
            if scoped[device]?.isEmpty == true { scoped[device] = nil }
        }
        beaconMatchers.removeAll { $0.entry == e }
        circleEntries.removeAll { $0 == e }
        assumedEntries.removeAll { $0 == e }
        entries[e] = nil
        freeEntries.append(e)
        // Only the longest or shortest exit timeout going changes the bounds (adding one is O(1)).
        if case .beacon(_, let exit) = entry.kind, exit >= heardMilliseconds || exit <= soonestDeadlineMilliseconds { updateExitBounds() }
        return entry
    }

    private func updateExitBounds() {
        var longest = freshnessMilliseconds, shortest = freshnessMilliseconds
        for case let entry? in entries {
            if case .beacon(_, let exit) = entry.kind {
                longest = max(longest, exit)
                shortest = min(shortest, exit)
            }
        }
        heardMilliseconds = longest
        soonestDeadlineMilliseconds = shortest
    }
}
