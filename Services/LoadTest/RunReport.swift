import Foundation
import Metrics

/// A latency distribution in milliseconds, from a `Histogram` of microseconds.
struct LatencySummary: Codable {
    var count: UInt64
    var min: Double
    var mean: Double
    var p50: Double
    var p90: Double
    var p99: Double
    var p999: Double
    var max: Double
    /// Values above the histogram's range (one hour): counted, reported as `max`.
    var overflow: UInt64

    init(_ h: Histogram) {
        func ms(_ microseconds: UInt64) -> Double { (Double(microseconds) / 1000 * 1000).rounded() / 1000 }
        count = h.count
        min = ms(h.min)
        mean = (h.mean / 1000 * 1000).rounded() / 1000
        p50 = ms(h.value(atPercentile: 50))
        p90 = ms(h.value(atPercentile: 90))
        p99 = ms(h.value(atPercentile: 99))
        p999 = ms(h.value(atPercentile: 99.9))
        max = ms(h.max)
        overflow = h.overflowCount
    }
}

/// What `load-test run` measured: written as JSON with `--json` and printed as a table.
struct RunReport: Codable {
    struct Settings: Codable {
        var runId: String
        var rate: Double
        var duration: Double
        var warmup: Double
        var devices: Int
        var batch: Int
        var orderRate: Double
        var ingestShards: Int
        var beaconExitSeconds: Double
        var timeout: Double
        var retrySeconds: Double
        var seed: UInt64
    }

    struct Sightings: Codable {
        /// Target sightings per second.
        var target: Double
        /// Sightings in the measured window's schedule, sent, accepted, refused (sent minus accepted among answered batches), unanswered.
        var scheduled: Int
        var sent: Int
        var accepted: Int
        var refused: Int
        var unanswered: Int
        /// Sent per second, from the window's start to the last send.
        var sentPerSecond: Double
        /// Accepted per second, from the window's start to the last accepting reply.
        var acceptedPerSecond: Double
        /// acceptedPerSecond / target.
        var achievedRatio: Double
        var batches: Int
        var batchErrors: [String: Int]
        var refusals: [String: Int]
        /// How late the sender was at worst against the schedule.
        var maxSendLagMs: Double
        var sendStalls: Int
        var batchRoundTripMs: LatencySummary
    }

    struct RegionEvents: Codable {
        /// Arrivals that must each produce `region.event` satisfied.
        var expected: Int
        var seen: Int
        var lost: Int
        /// Lost ones whose event came after all, later than the timeout.
        var late: Int
        /// Arrivals about one exit timeout after the last sighting there: may or may not fire; not counted as loss.
        var uncertain: Int
        var uncertainSeen: Int
        /// Satisfied events for this run's phones that no arrival explains.
        var unexpected: Int
        /// Arrivals whose report was refused (counted under sightings.refused instead).
        var cancelled: Int
        /// Sighting (intended send of its batch) → region event on the bus.
        var latencyMs: LatencySummary
    }

    struct Orders: Codable {
        var targetPerSecond: Double
        var started: Int
        var placed: Int
        var notified: Int
        var failed: Int
        var lost: Int
        var errors: [String: Int]
        var lostAt: [String: Int]
        var bumpRetries: Int
        var windowRetries: Int
        /// Requests sent again unchanged (the same idempotency key) after no reply came, in all and by op.
        var resent: Int
        var resentByOp: [String: Int]
        /// Order intended start → `notify.delivery.<device>.` with the order "ready".
        var latencyMs: LatencySummary
    }

    struct Bus: Codable {
        /// Whether both counters could be read before and after.
        var measured: Bool
        /// Whether region-monitor's count stopped moving (or caught up) before it was read; when
        /// false, `shed` includes sightings still queued on their way.
        var settled: Bool
        var publishedBestEffort: Int
        var consumedByRegionMonitor: Int
        /// Published minus consumed: sightings shed between beacon-ingest and region-monitor.
        var shed: Int
        /// Restarts seen in their health (a counter going back, a new start time): the counts go
        /// on across them, missing only what a process counted after its last read (4 a second).
        var restarts: [String: Int]
    }

    var settings: Settings
    var sightings: Sightings
    var regionEvents: RegionEvents
    var orders: Orders
    var bus: Bus
    /// Everything that went missing: region events, orders lost or failed, sightings refused or unanswered, sightings shed.
    var lost: Int
    var elapsedSeconds: Double

    /// The human summary printed on stdout at the end.
    var table: String {
        func n(_ v: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", v) }
        func right(_ cell: String, _ width: Int) -> String {
            cell.count >= width ? cell : String(repeating: " ", count: width - cell.count) + cell
        }
        var lines: [String] = []
        lines.append("load-test run \(settings.runId): \(n(settings.duration)) s at \(n(settings.rate, 0)) sightings/s, \(settings.devices) phones, "
                     + "\(settings.batch) reports per batch, \(n(settings.orderRate, 2)) orders/s (warm-up \(n(settings.warmup)) s)")
        lines.append("")
        lines.append("throughput" + right("target", 14) + right("sent", 10) + right("accepted", 10) + right("achieved", 10))
        lines.append("sightings/s" + right(n(sightings.target, 0), 13) + right(n(sightings.sentPerSecond, 0), 10)
                     + right(n(sightings.acceptedPerSecond, 0), 10) + right(n(sightings.achievedRatio * 100) + "%", 10))
        lines.append("")
        lines.append("latency (ms)".padding(toLength: 27, withPad: " ", startingAt: 0)
                     + ["count", "p50", "p90", "p99", "p99.9", "max", "mean"].map { right($0, 9) }.joined())
        for (name, s) in [("sighting → region event", regionEvents.latencyMs), ("order → ready notification", orders.latencyMs),
                          ("ingest.batch round trip", sightings.batchRoundTripMs)] {
            let label = name.padding(toLength: 27, withPad: " ", startingAt: 0)
            lines.append(label + ["\(s.count)", n(s.p50, 2), n(s.p90, 2), n(s.p99, 2), n(s.p999, 2), n(s.max, 2), n(s.mean, 2)].map { right($0, 9) }.joined())
        }
        lines.append("")
        lines.append("loss")
        lines.append("  sightings: \(sightings.sent) sent, \(sightings.accepted) accepted, \(sightings.refused) refused, \(sightings.unanswered) unanswered"
                     + (sightings.refusals.isEmpty ? "" : " \(sightings.refusals)") + (sightings.batchErrors.isEmpty ? "" : ", batch errors \(sightings.batchErrors)"))
        let shedWord = bus.settled ? "shed" : "shed or still queued (region-monitor had not caught up)"
        lines.append("  bus: " + (bus.measured ? "\(bus.publishedBestEffort) published by beacon-ingest, \(bus.consumedByRegionMonitor) consumed by region-monitor, \(bus.shed) \(shedWord)"
                                               : "counters not available (health did not answer)"))
        lines.append("  region events: \(regionEvents.expected) expected, \(regionEvents.seen) seen, \(regionEvents.lost) lost"
                     + (regionEvents.late > 0 ? " (\(regionEvents.late) of them came after the timeout)" : "")
                     + " (\(regionEvents.uncertain) uncertain, \(regionEvents.uncertainSeen) of them fired; \(regionEvents.unexpected) unexpected)")
        let restarted = bus.restarts.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)×" }
        if !restarted.isEmpty {
            lines.append("  restarts seen: \(restarted.joined(separator: ", ")) (counted across them; what a killed process counted after its last health read, "
                         + "at most 0.25 s of it, is missing)")
        }
        lines.append("  orders: \(orders.started) started, \(orders.placed) placed, \(orders.notified) notified, \(orders.failed) failed, \(orders.lost) lost"
                     + (orders.errors.isEmpty ? "" : " \(orders.errors)") + (orders.lostAt.isEmpty ? "" : " lost at \(orders.lostAt)")
                     + (orders.resent > 0 ? ", \(orders.resent) requests sent again \(orders.resentByOp.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))" : ""))
        lines.append("  total lost: \(lost)")
        lines.append("  sender: worst lag behind schedule \(n(sightings.maxSendLagMs, 1)) ms, \(sightings.sendStalls) stalls")
        return lines.joined(separator: "\n")
    }
}
