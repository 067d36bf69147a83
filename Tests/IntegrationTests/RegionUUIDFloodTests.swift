import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// Phones choose the beacon UUIDs they report. Tens of thousands of invented ones through the
/// real beacon-ingest and region-monitor: region-monitor holds none of them, keeps answering, and
/// still turns the campus beacon into a region event.
@Suite(.serialized)
struct RegionUUIDFloodTests {
    @Test("40,000 sightings of distinct random UUIDs (more than the 32,768 that used to trap): none held, health answers, the campus beacon still matches")
    func randomUUIDFlood() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.start(busAnd: ["beacon-ingest", "region-monitor"])
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["region.event."], probe: platform.busPub)
        let ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest"), timeoutMilliseconds: 10_000)
        let region = RequestClient(context: context, endpoint: platform.endpoint("region-monitor"), timeoutMilliseconds: 5_000)
        defer { ingest.close(); region.close(); watcher.close() }
        let phones = (0..<100).map { "flood-\($0)" }
        _ = try ingest.call(Op.ingestBatch, IngestBatch(reports: phones.map { IngestReport(deviceId: $0, status: DeviceStatusReport(authorization: .always, foreground: false)) }),
                            as: IngestBatchResult.self)
        // Forty gateway batches of 100 reports × 10 sightings (about 140 KB each, under the 256 KiB frame limit), every UUID new.
        var sent = 0
        for _ in 0..<40 {
            let now = Timestamp(Date())
            let reports = (0..<100).map { k in
                IngestReport(deviceId: phones[k % phones.count], sightings: (0..<10).map { _ in
                    RangingReport(uuid: UUID().uuidString, major: 1, minor: 1, rssi: -60, measuredPower: -59, timestamp: now)
                })
            }
            let result = try ingest.call(Op.ingestBatch, IngestBatch(reports: reports), as: IngestBatchResult.self)
            sent += result.results.reduce(0) { $0 + $1.accepted }
        }
        #expect(sent == 40_000, "beacon-ingest took every report")
        let health = try eventually("region-monitor consumed the flood", timeout: 30) { () -> [String: String]? in
            let status = try region.call(Op.health, Empty(), as: HealthStatus.self)
            return Int(status.details["sightings.unwatched"] ?? "") ?? 0 > 32_768 ? status.details : nil
        }
        #expect(health["beacon.uuids"] == "1", "only the campus UUID is held: \(health)")
        #expect(health["devices.tracked"] == "\(phones.count)", "one slot per phone, none per UUID: \(health)")

        // Matching still works: a campus beacon satisfies Caffè Macs for one of the flooding phones.
        _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: phones[0], sightings: [
            RangingReport(uuid: ScenarioTests.uuid, major: 1, minor: 1, rssi: -58, measuredPower: -59, timestamp: Timestamp(Date())),
        ]), as: IngestResult.self)
        _ = try watcher.waitFor("region.event.campus.") {
            if case .region(let e) = $0.envelope.body { e.deviceId == phones[0] && e.identifier == "caffe-macs" && e.state == .satisfied } else { false }
        }
        #expect(platform.process("region-monitor")?.isRunning == true)
        #expect(try region.call(Op.health, Empty(), as: HealthStatus.self).status == "ok")
    }
}
