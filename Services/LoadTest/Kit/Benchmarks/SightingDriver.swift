import Campus
import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// Sends `ingest.batch` requests open-loop from one thread: batch k is due at start + k·size/rate
/// and is sent then even if replies lag, so a slow platform shows as latency, not as a slower
/// sender (no coordinated omission).
final class Driver {
    static let sightingsPerReport = 4
    /// Reports per `ingest.batch`: 100 for throughput; the latency step uses smaller batches, as
    /// a gateway forwarding every few milliseconds would.
    var reportsPerBatch = 100

    struct Outcome {
        var achieved: Double
        var accepted: Int
        /// Sighting → region event of the fresh devices due from `measureFrom` on, in milliseconds.
        var latencies: [Double]
        /// The same, with each one's due time (seconds since the drive's start).
        var probes: [(due: Double, ms: Double)]
        /// Every `region.nearest` answer about a device this drive did not sight, when it was seen
        /// (`Bench.now()`) and whether it named no café: quiet devices' answers, cleared as they go stale.
        var quietAnswers: [(device: Int, cleared: Bool, at: Double)]
        /// When the drive started (`Bench.now()`), which `probes`' due times count from.
        var start: Double
    }

    /// Which devices a drive sights: `count` of them in turn from `start` (wrapping), the rest quiet.
    struct Cycle {
        var start: Int
        var count: Int
    }

    private let dealer: Socket
    private let sub: Socket
    private let ids: [String]
    private let beacons: [(major: Int, minors: [Int])]
    private let uuid: String
    /// Reports taken from the sighted devices in the current drive (then the position after it).
    private var cursor = 0
    private var active: Cycle?
    private var freshCounter = 0
    /// When each device was last sighted (`Bench.now()` as its report was written; nan: never).
    private var sightedAt: [Double]
    private(set) var totalAccepted = 0

    /// Sends as `gateway` and watches the bus as `observer` (CURVE clients in deployed mode).
    init(context: Context, ingest: String, busSub: String, catalog: CampusCatalog, ids: [String], gateway: SocketSecurity, observer: SocketSecurity) throws {
        dealer = try Socket(context, .dealer)
        try dealer.setLinger(milliseconds: 0)
        try dealer.setSendHighWaterMark(0)
        try dealer.setReceiveHighWaterMark(0)
        try gateway.secureClient(dealer, server: "beacon-ingest")
        try dealer.connect(ingest)
        sub = try Socket(context, .sub)
        try sub.setLinger(milliseconds: 0)
        try sub.subscribe("region.event.")
        try observer.secureClient(sub, server: "bus")
        try sub.connect(busSub)
        self.ids = ids
        sightedAt = Array(repeating: .nan, count: ids.count)
        beacons = catalog.cafes.map { cafe in (cafe.beaconMajor, cafe.stations.map(\.minor)) }
        uuid = catalog.beaconUUID
    }

    func close() {
        dealer.close()
        sub.close()
    }

    /// Where the next drive's devices start: the one after the last sighted.
    var position: Int { cursor % ids.count }

    /// When `device` was last sighted (`Bench.now()` as its report was written); nil: never.
    func lastSighted(_ device: Int) -> Double? {
        sightedAt[device].isNaN ? nil : sightedAt[device]
    }

    /// Waits `seconds` reading (and dropping) what the bus sends meanwhile: a subscriber that
    /// reads nothing for the bus's `--slow-subscriber-seconds` (5) is cut, and the events of its
    /// next step would be lost while it connects again.
    func idle(seconds: Double) throws {
        var poller = Poller()
        poller.register(sub)
        let end = Bench.now() + seconds
        while Bench.now() < end {
            _ = try poller.poll(timeoutMilliseconds: max(1, Int(((end - Bench.now()) * 1000).rounded(.up))))
            while try sub.tryReceiveMultipart() != nil {}
        }
    }

    /// Drives `rate` for `seconds`, `freshPerSecond` of the reports from new devices whose region
    /// events are timed from `measureFrom` on. With `cycle`, only those devices are sighted, and
    /// the others' `region.nearest` answers are watched for.
    func drive(rate: Double, seconds: Double, freshPerSecond: Double, measureFrom: Double = 0, cycle: Cycle? = nil) throws -> Outcome {
        let sighted = cycle ?? Cycle(start: position, count: ids.count)
        cursor = 0
        active = sighted
        // Only while devices are quiet: the bus's work for this subscriber is the platform's CPU.
        if cycle != nil { try sub.subscribe("region.nearest.") }
        defer { if cycle != nil { try? sub.unsubscribe("region.nearest.") } }
        let batchSightings = Self.sightingsPerReport * reportsPerBatch
        let interval = Double(batchSightings) / rate
        let batches = max(1, Int((seconds / interval).rounded()))
        let freshPerBatch = freshPerSecond * interval
        var freshDebt = 0.0
        var pendingReplies = 0
        var accepted = 0
        var intended: [String: Double] = [:]
        var probes: [(due: Double, ms: Double)] = []
        var quietAnswers: [(device: Int, cleared: Bool, at: Double)] = []
        var poller = Poller()
        poller.register(dealer)
        poller.register(sub)
        let start = Bench.now()
        var sent = 0
        func drain() throws {
            while let frames = try dealer.tryReceiveMultipart() {
                pendingReplies -= 1
                if let reply = try? Wire.decodeReply(frames.last ?? Data(), body: IngestBatchResult.self), let body = reply.body { accepted += body.accepted }
            }
            while let frames = try sub.tryReceiveMultipart() {
                guard frames.count == 2 else { continue }
                guard let envelope = try? Wire.decodeEnvelope(frames[1]) else { continue }
                if case .nearest(let answer) = envelope.body {
                    if cycle != nil, let device = Self.benchDevice(answer.deviceId), device < ids.count, !isSighted(device) {
                        quietAnswers.append((device, answer.beacon == nil, Bench.now()))
                    }
                    continue
                }
                guard case .region(let event) = envelope.body, let due = intended.removeValue(forKey: event.deviceId) else { continue }
                if due - start >= measureFrom { probes.append((due - start, (Bench.now() - due) * 1000)) }
            }
        }
        while sent < batches || pendingReplies > 0 || (!intended.isEmpty && Bench.now() - start < seconds + 5) {
            let now = Bench.now()
            while sent < batches, start + Double(sent) * interval <= now {
                let due = start + Double(sent) * interval
                freshDebt += freshPerBatch
                let fresh = Int(freshDebt)
                freshDebt -= Double(fresh)
                let (frame, freshIDs) = batchFrame(fresh: fresh)
                for id in freshIDs { intended[id] = due }
                try dealer.send(multipart: [Data(), frame])
                pendingReplies += 1
                sent += 1
            }
            let next = sent < batches ? max(0, start + Double(sent) * interval - Bench.now()) : 0.05
            _ = try poller.poll(timeoutMilliseconds: Int((next * 1000).rounded(.up)))
            try drain()
            if sent >= batches && pendingReplies > 0 && Bench.now() - start > seconds + 30 { break }
        }
        let elapsed = Bench.now() - start
        totalAccepted += accepted
        cursor = (sighted.start + cursor % sighted.count) % ids.count
        active = nil
        return Outcome(achieved: Double(accepted) / max(elapsed, seconds), accepted: accepted, latencies: probes.map(\.ms).sorted(), probes: probes,
                       quietAnswers: quietAnswers, start: start)
    }

    /// The number of a bench device ("bench-N"); nil for any other id (the fresh devices).
    static func benchDevice(_ deviceId: String) -> Int? {
        guard deviceId.hasPrefix("bench-"), deviceId.count <= 15 else { return nil }
        return Int(deviceId.dropFirst(6)).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// Whether the current drive sights `device`.
    private func isSighted(_ device: Int) -> Bool {
        guard let active else { return true }
        return (device - active.start + ids.count) % ids.count < active.count
    }

    /// One `ingest.batch` request, written by hand (the generator must outrun the platform):
    /// `reportsPerBatch` devices in turn, each ranging its café's beacons; `fresh` new devices
    /// whose first sighting must produce a region event.
    private func batchFrame(fresh: Int) -> (Data, [String]) {
        let now = Timestamp(Date()).rfc3339
        let sentAt = Bench.now()
        var out = #"{"op":"ingest.batch","id":"b","body":{"reports":["#
        var freshIDs: [String] = []
        for r in 0..<reportsPerBatch {
            if r > 0 { out += "," }
            let isFresh = r < fresh
            let id: String
            let cafe: (major: Int, minors: [Int])
            if isFresh {
                freshCounter += 1
                id = "fresh-\(getpid())-\(freshCounter)"
                freshIDs.append(id)
                cafe = beacons[freshCounter % beacons.count]
            } else {
                // A device stays at its café: steady state is sightings that change nothing.
                let sighted = active ?? Cycle(start: 0, count: ids.count)
                let device = (sighted.start + cursor % sighted.count) % ids.count
                id = ids[device]
                sightedAt[device] = sentAt
                cursor += 1
                cafe = beacons[device % beacons.count]
            }
            out += #"{"deviceId":""# + id + #"","#
            if isFresh { out += #""status":{"authorization":"always","foreground":false,"precise":true,"monitoringAvailable":true,"rangingAvailable":true},"# }
            out += #""sightings":["#
            for s in 0..<Self.sightingsPerReport {
                if s > 0 { out += "," }
                let minor = cafe.minors[s % cafe.minors.count]
                out += #"{"uuid":""# + uuid + #"","major":"# + String(cafe.major) + #","minor":"# + String(minor)
                out += #","rssi":"# + String(-58 - s * 3) + #","measuredPower":-59,"timestamp":""# + now + #""}"#
            }
            out += "]}"
        }
        out += "]}}"
        return (Data(out.utf8), freshIDs)
    }
}
