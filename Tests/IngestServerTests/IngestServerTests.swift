@testable import BeaconIngestServer
import Foundation
import Messages
import Testing
import TestSupport

/// beacon-ingest's shell in-process: authorization as a phone reports it, the device status it
/// keeps across a restart, and the fix channel to region-monitor. Real SQLite, clock in hand.
@Suite(.serialized)
struct IngestServerTests {
    @Test("an allowOnce device that goes to the background has its next locations refused and its smoothing state dropped")
    func allowOnceEndsInBackground() throws {
        let h = try IngestHarness()
        let first = try h.report("phone-1", status: IngestHarness.status(.allowOnce), sightings: [h.ranging()], fixes: [h.fix()])
        #expect(first.accepted == 3 && first.rejected == 0)
        let sent = try requireValue(try h.nextFix())
        #expect(sent.deviceId == "phone-1" && sent.latitude == 37.3349 && sent.precise)
        #expect(h.service.engine.trackedBeacons(of: "phone-1") == 1)
        #expect(try h.health()["devices.smoothing"] == "1")

        h.clock.advance(seconds: 5)
        let background = try h.report("phone-1", status: IngestHarness.status(.allowOnce, foreground: false))
        #expect(background.accepted == 1)
        // Region-monitor learns of it through device.status and drops what it holds.
        #expect(try h.statusEvents().map(\.foreground) == [true, false])
        #expect(h.service.engine.trackedBeacons(of: "phone-1") == 0)
        #expect(try h.health()["devices.smoothing"] == "0")

        // Back in the foreground would need a new grant from the user: until then nothing is taken.
        h.clock.advance(seconds: 1)
        let refused = try h.report("phone-1", sightings: [h.ranging()], fixes: [h.fix(latitude: 37.40)])
        #expect(refused.accepted == 0 && refused.rejected == 2)
        #expect(refused.rejections.map(\.code) == ["location.oneTimeGrantExpired", "location.oneTimeGrantExpired"])
        #expect(h.service.engine.trackedBeacons(of: "phone-1") == 0)
        // The refused fix never went to region-monitor: the next one there is another device's.
        _ = try h.report("phone-2", status: IngestHarness.status(.always), fixes: [h.fix(latitude: 37.50)])
        let next = try requireValue(try h.nextFix())
        #expect(next.deviceId == "phone-2" && next.latitude == 37.50)
    }

    @Test("a device's status survives a restart on the same file: no need to send it again, and no second device.status")
    func statusSurvivesRestart() throws {
        let h = try IngestHarness()
        _ = try h.report("walker", status: IngestHarness.status(.always))
        _ = try h.report("pocket", status: IngestHarness.status(.whenInUse))
        _ = try h.report("pocket", status: IngestHarness.status(.whenInUse, foreground: false))
        #expect(try h.statusEvents().count == 3)

        h.clock.advance(seconds: 30)
        try h.restart()
        let walker = try h.report("walker", sightings: [h.ranging()], fixes: [h.fix()])
        #expect(walker.accepted == 2 && walker.rejected == 0)
        #expect(try h.nextFix()?.deviceId == "walker")
        let pocket = try h.report("pocket", sightings: [h.ranging()])
        #expect(pocket.rejections.map(\.code) == ["location.notInForeground"])
        let stranger = try h.report("stranger", sightings: [h.ranging()])
        #expect(stranger.rejections.map(\.code) == ["location.unknownDevice"])
        // The same status again is no change: region-monitor is not told twice.
        _ = try h.report("walker", status: IngestHarness.status(.always))
        #expect(try h.statusEvents().count == 3)
        #expect(try h.service.store.status(of: "pocket")?.foreground == false)
    }

    @Test("an instance serving one shard refuses the other shard's devices, alone in a gateway batch, and stores nothing for them")
    func wrongShard() throws {
        let h = try IngestHarness(arguments: ["--shards", "2", "--shard", "0"])
        let mine = try requireValue((0...).lazy.map { "dev-\($0)" }.first { Topic.shard(of: $0, count: 2) == 0 })
        let other = try requireValue((0...).lazy.map { "dev-\($0)" }.first { Topic.shard(of: $0, count: 2) == 1 })
        let refusal = try requireValue(serviceError { try h.report(other, status: IngestHarness.status(.always)) })
        #expect(refusal.code == "ingest.wrongShard" && refusal.message.contains("belongs to shard 1 of 2"))
        let batch = try h.service.ingest(IngestBatch(reports: [
            IngestReport(deviceId: mine, status: IngestHarness.status(.always), sightings: [h.ranging()]),
            IngestReport(deviceId: other, status: IngestHarness.status(.always), sightings: [h.ranging()]),
        ]))
        #expect(batch.accepted == 2 && batch.results.map(\.error?.code) == [nil, "ingest.wrongShard"])
        #expect(try h.service.store.status(of: other) == nil)
        #expect(try h.service.store.status(of: mine)?.authorization == .always)
        #expect(try h.health()["shard"] == "0")
    }
}
