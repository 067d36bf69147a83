import Messages

/// Sightings received and not yet applied, in the order they came: the rest of a batch whose
/// application reached the end of its time slice, and what arrived behind it.
///
/// A `sighting.batch` carries up to 256 sightings; when they are 64 first-seen devices it is about
/// 2 ms of region-monitor's work, twice the reactor's slice, and everything else the service
/// does (requests, timers, the next messages' commits) waited behind it. Applied from here,
/// a slice at a time, one message holds the loop no longer than any other turn.
struct PendingSightings {
    /// One message's sightings from `next` on, with its publication time (for the latency of
    /// the region events it causes) and whether any of its sightings announced one yet.
    private struct Batch {
        var sightings: [Sighting]
        var next: Int
        var time: Timestamp
        var announced: Bool
    }

    private var batches: [Batch] = []
    /// The first batch still pending: batches before it are done (dropped in bulk, not one by one).
    private var head = 0
    /// Sightings waiting.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Queues a message's sightings behind what is waiting.
    mutating func append(_ sightings: [Sighting], time: Timestamp) {
        guard !sightings.isEmpty else { return }
        batches.append(Batch(sightings: sightings, next: 0, time: time, announced: false))
        count += sightings.count
    }

    /// The next sighting to apply; nil when none waits.
    var next: Sighting? {
        head < batches.count ? batches[head].sightings[batches[head].next] : nil
    }

    /// The sighting `next` gave was applied (`announced`: it caused a region event). Returns its
    /// message's publication time when that was the message's last sighting and any of them
    /// announced an event, for the sighting → region event latency.
    mutating func applied(announced: Bool) -> Timestamp? {
        precondition(head < batches.count, "no pending sighting was applied")
        count -= 1
        batches[head].announced = batches[head].announced || announced
        batches[head].next += 1
        guard batches[head].next == batches[head].sightings.count else { return nil }
        let done = batches[head]
        head += 1
        if head == batches.count {
            batches.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 {
            batches.removeFirst(head)
            head = 0
        }
        return done.announced ? done.time : nil
    }

    /// Forgets every waiting sighting; returns how many there were.
    mutating func removeAll() -> Int {
        let dropped = count
        batches.removeAll()
        head = 0
        count = 0
        return dropped
    }
}
