import Campus
import Foundation
@testable import LoadTestKit
import Messages
import Testing

/// The load generator writes its `ingest.batch` frames and reads beacon-ingest's replies by hand,
/// for speed: each must say what the typed messages say.
struct GeneratorFrameTests {
    static func catalog() throws -> CampusCatalog {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try CampusCatalog.load(path: root.appendingPathComponent("deploy/campus.json").path)
    }

    @Test("every batch the schedule writes is an ingest.batch whose reports and sightings it counted, with the schedule's timestamps")
    func framesDecode() throws {
        let layout = CampusLayout(catalog: try Self.catalog())
        let fleet = PhoneFleet(count: 200, runID: "t", shards: 2, layout: layout, exitTimeout: 30, dwellMean: 60, seed: 1)
        let start = Timestamp(milliseconds: 1_790_000_000_000)
        let schedule = SightingSchedule(fleet: fleet, rate: 2_000, batchSize: 25, shards: 2, end: 2, uuid: layout.uuid, wallStartMilliseconds: start.milliseconds)
        schedule.generate(upTo: 3)
        var batches = 0, sightings = 0
        while let plan = schedule.popDue(now: 10) {
            let request = try Wire.decodeRequest(plan.frame, body: IngestBatch.self)
            #expect(request.op == Op.ingestBatch)
            #expect(request.body.reports.count == plan.reports)
            let ranged = request.body.reports.flatMap { $0.sightings ?? [] }
            #expect(ranged.count == plan.sightings)
            #expect(ranged.allSatisfy { $0.uuid == layout.uuid && $0.measuredPower == PhoneFleet.measuredPower && $0.timestamp.milliseconds >= start.milliseconds })
            #expect(request.body.reports.allSatisfy { ($0.deviceId ?? "").hasPrefix("t-p") })
            batches += 1
            sightings += plan.sightings
        }
        #expect(batches > 0 && sightings == schedule.sightingsScheduled)
    }

    @Test("integers as JSON writes them", arguments: [0, 7, -59, 65_535, -127, Int.max, Int.min + 1])
    func integers(value: Int) {
        var out: [UInt8] = []
        JSONText.appendInteger(Int64(value), to: &out)
        #expect(String(decoding: out, as: UTF8.self) == String(value))
    }

    @Test("a reply's head read from its bytes is what JSONDecoder reads; any other reply is left to it")
    func replyHead() throws {
        let results = [IngestBatchItem(deviceId: "a", result: IngestResult(accepted: 3, rejected: 0, rejections: [])),
                       IngestBatchItem(deviceId: "b", result: IngestResult(accepted: 4, rejected: 0, rejections: []))]
        let reply = Wire.encode(Reply.success(IngestBatchResult(accepted: 7, rejected: 0, results: results)))
        let fast = try #require(BatchReplyHead.fast(reply))
        let slow = try JSONDecoder().decode(BatchReplyHead.self, from: reply)
        #expect(fast.ok && slow.ok && fast.body?.accepted == 7 && slow.body?.accepted == 7 && fast.body?.rejected == 0)
        let refused = Wire.encode(Reply<IngestBatchResult>.failure(ServiceError(.tooLarge, "too many")))
        #expect(BatchReplyHead.fast(refused) == nil)
        #expect(BatchReplyHead.fast(Data(#"{"body":{"accepted":"#.utf8)) == nil)
    }
}
