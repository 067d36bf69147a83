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
        var latencies: [Double]
    }

    private let dealer: Socket
    private let sub: Socket
    private let ids: [String]
    private let beacons: [(major: Int, minors: [Int])]
    private let uuid: String
    private var cursor = 0
    private var freshCounter = 0
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
        beacons = catalog.cafes.map { cafe in (cafe.beaconMajor, cafe.stations.map(\.minor)) }
        uuid = catalog.beaconUUID
    }

    func close() {
        dealer.close()
        sub.close()
    }

    func drive(rate: Double, seconds: Double, freshPerSecond: Double) throws -> Outcome {
        let batchSightings = Self.sightingsPerReport * reportsPerBatch
        let interval = Double(batchSightings) / rate
        let batches = max(1, Int((seconds / interval).rounded()))
        let freshPerBatch = freshPerSecond * interval
        var freshDebt = 0.0
        var pendingReplies = 0
        var accepted = 0
        var intended: [String: Double] = [:]
        var latencies: [Double] = []
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
                guard frames.count == 2, let envelope = try? Wire.decodeEnvelope(frames[1]), case .region(let event) = envelope.body,
                      let due = intended.removeValue(forKey: event.deviceId) else { continue }
                latencies.append((Bench.now() - due) * 1000)
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
        return Outcome(achieved: Double(accepted) / max(elapsed, seconds), accepted: accepted, latencies: latencies)
    }

    /// One `ingest.batch` request, written by hand (the generator must outrun the platform):
    /// `reportsPerBatch` devices in turn, each ranging its café's beacons; `fresh` new devices
    /// whose first sighting must produce a region event.
    private func batchFrame(fresh: Int) -> (Data, [String]) {
        let now = Timestamp(Date()).rfc3339
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
                let device = cursor % ids.count
                id = ids[device]
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
