import Metrics

/// The region events a run should cause, matched against those seen on `region.event.`.
///
/// A phone arriving at a café it was not in (by the exit-timeout model of `PhoneFleet`) must
/// produce `region.event` satisfied for that café's condition. Each expectation carries the
/// intended send time of the batch with the arriving sighting; the latency runs from there.
final class ArrivalTracker {
    struct Key: Hashable {
        var device: Int
        var place: Int
    }

    struct Pending {
        var intended: Double
        var certain: Bool
    }

    struct Counts {
        var expected = 0
        var seen = 0
        var lost = 0
        var uncertain = 0
        var uncertainSeen = 0
        var unexpected = 0
        var cancelled = 0
        /// Lost ones whose event came after all, later than the timeout.
        var late = 0
    }

    let measureFrom: Double
    let timeout: Double
    private var pending: [Key: [Pending]] = [:]
    /// Certain expectations given up per key, so an event that comes after all counts as late, not unexpected.
    private var givenUp: [Key: Int] = [:]
    private(set) var latency = Histogram()
    /// The same latency split where region-monitor published the event (its envelope's time):
    /// the sighting's way in (generator, beacon-ingest, bus, region-monitor) and the event's way
    /// out (commit, bus, this process's queue).
    private(set) var toPublished = Histogram()
    private(set) var fromPublished = Histogram()
    private(set) var counts = Counts()

    init(measureFrom: Double, timeout: Double) {
        self.measureFrom = measureFrom
        self.timeout = timeout
    }

    /// Certain expectations still open.
    private(set) var outstandingCertain = 0

    /// A batch carrying an arrival was sent.
    func expect(_ arrival: Arrival, intended: Double) {
        let key = Key(device: arrival.device, place: arrival.place)
        // An uncertain expectation still open when the phone arrives again did not fire.
        pending[key]?.removeAll { !$0.certain }
        pending[key, default: []].append(Pending(intended: intended, certain: arrival.certain))
        if arrival.certain {
            counts.expected += 1
            outstandingCertain += 1
        } else {
            counts.uncertain += 1
        }
    }

    /// The report carrying an arrival was refused: the event is not owed (the refusal is counted apart).
    func cancel(_ arrival: Arrival, intended: Double) {
        let key = Key(device: arrival.device, place: arrival.place)
        guard let index = pending[key]?.firstIndex(where: { $0.intended == intended }) else { return }
        if pending[key]![index].certain {
            counts.expected -= 1
            counts.cancelled += 1
            outstandingCertain -= 1
        } else {
            counts.uncertain -= 1
        }
        pending[key]!.remove(at: index)
        if pending[key]!.isEmpty { pending[key] = nil }
    }

    /// `region.event` satisfied for a phone of this run and a café, seen at schedule time `now`.
    /// `published` is when region-monitor published it, on the same clock (nil: not known).
    func satisfied(device: Int, place: Int, now: Double, published: Double? = nil) {
        let key = Key(device: device, place: place)
        guard var list = pending[key], !list.isEmpty else {
            if let gone = givenUp[key] {
                counts.late += 1
                givenUp[key] = gone > 1 ? gone - 1 : nil
            } else {
                counts.unexpected += 1
            }
            return
        }
        let first = list.removeFirst()
        pending[key] = list.isEmpty ? nil : list
        guard first.certain else {
            counts.uncertainSeen += 1
            return
        }
        counts.seen += 1
        outstandingCertain -= 1
        if first.intended >= measureFrom {
            latency.record(UInt64(max(0, (now - first.intended) * 1_000_000)))
            if let published {
                toPublished.record(UInt64(max(0, (published - first.intended) * 1_000_000)))
                fromPublished.record(UInt64(max(0, (now - published) * 1_000_000)))
            }
        }
    }

    /// Expectations older than the timeout: certain ones are lost, uncertain ones simply did not fire.
    func expire(now: Double) {
        for (key, list) in pending {
            let (old, young) = (list.filter { now - $0.intended > timeout }, list.filter { now - $0.intended <= timeout })
            guard !old.isEmpty else { continue }
            let lost = old.filter(\.certain).count
            counts.lost += lost
            outstandingCertain -= lost
            if lost > 0 { givenUp[key, default: 0] += lost }
            pending[key] = young.isEmpty ? nil : young
        }
    }

    /// Gives up everything still open.
    func expireAll() {
        counts.lost += outstandingCertain
        outstandingCertain = 0
        pending.removeAll()
    }
}
