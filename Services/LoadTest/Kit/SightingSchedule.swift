import Foundation
import Messages

/// One `ingest.batch` request as a gateway forwards it: the frame, and what it should cause.
struct IngestBatchPlan {
    var number: Int
    var shard: Int
    /// When the batch is due: the schedule time (seconds since the start) of its last report,
    /// the moment a gateway would forward it. Latencies are measured from here, not from when
    /// the sender managed to send it, so a sender that falls behind cannot hide the delay.
    var intended: Double
    var reports: Int
    var sightings: Int
    /// Conditions that the batch should flip to satisfied, with the report (index in the batch) that carries them.
    var arrivals: [(arrival: Arrival, report: Int)]
    var frame: Data
}

/// The open-loop schedule: sighting i is due at start + i / rate. Reports are taken from the
/// phones in schedule order and collected per shard into batches of `batchSize` reports, each
/// due when its last report is. Generated ahead of the wall clock (the model only reads
/// schedule time), so the sender sleeps until the next batch is due instead of spinning.
final class SightingSchedule {
    private struct OpenBatch {
        /// The reports' JSON so far, as bytes: a String built by interpolation cost the generator
        /// a third of its time (issue 31's profile), and 24 ms behind schedule at 50,000/s.
        var bytes: [UInt8] = []
        var reports = 0
        var sightings = 0
        var arrivals: [(arrival: Arrival, report: Int)] = []
    }

    let rate: Double
    let batchSize: Int
    let end: Double
    private let fleet: PhoneFleet
    private let uuid: String
    private let wallStartMilliseconds: Int64
    private var open: [OpenBatch]
    private var ready: [IngestBatchPlan] = []
    private var readyHead = 0
    private var scheduledSightings = 0
    /// Schedule time lost while every phone was walking (the schedule moves on without them).
    private var idleOffset = 0.0
    private var batchNumber = 0
    private var finished = false
    private var cachedMillisecond: Int64 = -1
    private var cachedTimestamp: [UInt8] = []
    private let uuidBytes: [UInt8]

    init(fleet: PhoneFleet, rate: Double, batchSize: Int, shards: Int, end: Double, uuid: String, wallStartMilliseconds: Int64) {
        self.fleet = fleet
        self.rate = rate
        self.batchSize = batchSize
        self.end = end
        self.uuid = uuid
        uuidBytes = Array(uuid.utf8)
        self.wallStartMilliseconds = wallStartMilliseconds
        open = Array(repeating: OpenBatch(), count: shards)
    }

    /// Schedule time of the next report.
    var nextReportTime: Double { idleOffset + Double(scheduledSightings) / rate }

    /// Whether every report up to the end is generated and every batch closed.
    var isFinished: Bool { finished }

    /// Sightings scheduled so far.
    var sightingsScheduled: Int { scheduledSightings }

    /// Generates reports due before `horizon` (schedule time); past the end, closes the partial batches.
    func generate(upTo horizon: Double) {
        guard !finished else { return }
        while nextReportTime < min(horizon, end) {
            let time = nextReportTime
            guard let report = fleet.nextReport(at: time) else {
                idleOffset += 0.01
                continue
            }
            add(report)
            scheduledSightings += report.beacons.count
        }
        if nextReportTime >= end {
            // A gateway forwards what it holds when the run ends.
            for shard in open.indices where open[shard].reports > 0 { close(shard, at: end) }
            finished = true
        }
    }

    /// The intended time of the next batch ready to send, if any.
    var nextDue: Double? { readyHead < ready.count ? ready[readyHead].intended : nil }

    /// The next batch if it is due at schedule time `now`.
    func popDue(now: Double) -> IngestBatchPlan? {
        guard readyHead < ready.count, ready[readyHead].intended <= now else { return nil }
        let plan = ready[readyHead]
        readyHead += 1
        if readyHead > 256 && readyHead * 2 > ready.count {
            ready.removeFirst(readyHead)
            readyHead = 0
        }
        return plan
    }

    private func add(_ report: PhoneReport) {
        let phone = fleet.phones[report.device]
        // Taken out while it grows, so its buffer is not shared (and copied) on every append.
        var batch = open[phone.shard]
        open[phone.shard] = OpenBatch()
        func raw(_ text: StaticString) { batch.bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        if batch.reports > 0 { raw(",") }
        raw(#"{"deviceId":""#)
        batch.bytes.append(contentsOf: phone.id.utf8)
        raw(#"","sightings":["#)
        let stamp = timestamp(at: report.time)
        for (index, beacon) in report.beacons.enumerated() {
            raw(index > 0 ? #",{"major":"# : #"{"major":"#)
            JSONText.appendInteger(Int64(beacon.major), to: &batch.bytes)
            raw(#","measuredPower":"#)
            JSONText.appendInteger(Int64(PhoneFleet.measuredPower), to: &batch.bytes)
            raw(#","minor":"#)
            JSONText.appendInteger(Int64(beacon.minor), to: &batch.bytes)
            raw(#","rssi":"#)
            JSONText.appendInteger(Int64(beacon.rssi), to: &batch.bytes)
            raw(#","timestamp":""#)
            batch.bytes.append(contentsOf: stamp)
            raw(#"","uuid":""#)
            batch.bytes.append(contentsOf: uuidBytes)
            raw(#""}"#)
        }
        raw("]}")
        for arrival in report.arrivals { batch.arrivals.append((arrival, batch.reports)) }
        batch.reports += 1
        batch.sightings += report.beacons.count
        open[phone.shard] = batch
        if batch.reports >= batchSize { close(phone.shard, at: report.time) }
    }

    private func close(_ shard: Int, at intended: Double) {
        let batch = open[shard]
        open[shard] = OpenBatch()
        batchNumber += 1
        var frame = Data("{\"op\":\"\(Op.ingestBatch)\",\"id\":\"lt-b\(batchNumber)\",\"body\":{\"reports\":[".utf8)
        frame.reserveCapacity(frame.count + batch.bytes.count + 3)
        frame.append(contentsOf: batch.bytes)
        frame.append(contentsOf: "]}}".utf8)
        ready.append(IngestBatchPlan(number: batchNumber, shard: shard, intended: intended, reports: batch.reports,
                                     sightings: batch.sightings, arrivals: batch.arrivals, frame: frame))
    }

    /// The phone's clock reading at schedule time `time`, as RFC 3339 (cached per millisecond).
    private func timestamp(at time: Double) -> [UInt8] {
        let millisecond = wallStartMilliseconds + Int64((time * 1000).rounded(.down))
        if millisecond != cachedMillisecond {
            cachedMillisecond = millisecond
            cachedTimestamp = []
            Timestamp(milliseconds: millisecond).appendRFC3339(to: &cachedTimestamp)
        }
        return cachedTimestamp
    }
}
