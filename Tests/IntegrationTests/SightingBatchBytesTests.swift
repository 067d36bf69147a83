import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// An operator who lowers `--max-message-bytes` on the bus and region-monitor, and beacon-ingest's
/// `--sighting-batch-bytes` with them, loses no sighting: beacon-ingest cuts a request's sightings
/// into messages within the bound, where one 256-sighting batch (about 80 KB) used to be
/// dead-lettered whole.
@Suite(.serialized)
struct SightingBatchBytesTests {
    /// In both encodings beacon-ingest can write: the compact frame (its default) and JSON.
    @Test("with 2 KiB messages on the bus and region-monitor, 300 sightings of one request all arrive, each message within 2 KiB and in the encoding asked for, none dead-lettered",
          arguments: [SightingEncoding.compact, .json])
    func smallMessages(_ encoding: SightingEncoding) throws {
        let platform = try Platform()
        defer { platform.stop() }
        let limit = 2_048
        platform.extraArguments["bus"] = ["--max-message-bytes", "\(limit)"]
        platform.extraArguments["region-monitor"] = ["--max-message-bytes", "\(limit)"]
        platform.extraArguments["beacon-ingest"] = ["--sighting-batch-bytes", "\(limit)"] + (encoding == .json ? ["--sighting-encoding", "json"] : [])
        try platform.start(busAnd: ["beacon-ingest", "region-monitor"])
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["sighting.", "deadletter."], probe: platform.busPub)
        let ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest"), timeoutMilliseconds: 10_000)
        let region = RequestClient(context: context, endpoint: platform.endpoint("region-monitor"), timeoutMilliseconds: 5_000)
        defer { ingest.close(); region.close(); watcher.close() }
        let phones = (0..<30).map { "bytes-phone-\($0)" }
        _ = try ingest.call(Op.ingestBatch, IngestBatch(reports: phones.map { IngestReport(deviceId: $0, status: DeviceStatusReport(authorization: .always, foreground: false)) }),
                            as: IngestBatchResult.self)
        let now = Timestamp(Date())
        let reports = phones.map { phone in
            IngestReport(deviceId: phone, sightings: (0..<10).map { k in
                RangingReport(uuid: ScenarioTests.uuid, major: 1, minor: 1 + k % 3, rssi: -60 - k, measuredPower: -59, timestamp: now)
            })
        }
        let result = try ingest.call(Op.ingestBatch, IngestBatch(reports: reports), as: IngestBatchResult.self)
        #expect(result.accepted == 300)
        let consumed = try eventually("region-monitor consumed every sighting", timeout: 15) { () -> Int? in
            let count = Int(try region.call(Op.health, Empty(), as: HealthStatus.self).details["sightings.consumed"] ?? "") ?? 0
            return count >= 300 ? count : nil
        }
        #expect(consumed == 300)
        try watcher.pump(milliseconds: 300)
        let batches = watcher.all("sighting.")
        #expect(batches.count > 1, "one request's sightings went as several messages")
        for message in batches {
            #expect(message.raw.count <= limit)
            #expect(CompactSightingBatch.isCompact(message.raw) == (encoding == .compact), "\(encoding): the frame starts \(message.raw.first ?? 0)")
        }
        // Compact frames carry about three times the sightings JSON does within the same bytes.
        #expect(batches.count <= (encoding == .compact ? 20 : 50), "\(batches.count) messages")
        let carried = batches.reduce(0) { total, message in
            if case .sightings(let batch) = message.envelope.body { total + batch.sightings.count } else { total }
        }
        #expect(carried == 300)
        #expect(watcher.all("deadletter.").isEmpty && !watcher.undecodable.contains { $0.topic.hasPrefix("deadletter.") }, "nothing dead-lettered")
        #expect(try region.call(Op.health, Empty(), as: HealthStatus.self).details["events.refused"] == "0")
    }
}
