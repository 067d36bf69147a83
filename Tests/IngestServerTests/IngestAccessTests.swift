@testable import BeaconIngestServer
import Foundation
import Messages
import Policy
import Testing
import TestSupport

extension IngestHarness {
    /// A request through the router as `caller`, encoded and decoded as the wire carries it.
    func call<Body: Codable & Sendable, Result: Codable & Sendable>(_ op: String, _ body: Body, as result: Result.Type, caller: Caller) throws -> Result {
        try Wire.decodeReply(host.requests.router.handle(Wire.encode(Request(op: op, body: body)), caller: caller), body: Result.self).get()
    }

    /// What beacon-ingest holds and has sent: each device's stored status and the status events.
    func snapshot() throws -> [String] {
        let stored = try host.db.query("SELECT device_id, authorization FROM devices ORDER BY device_id").map { "\($0.string("device_id"))=\($0.string("authorization"))" }
        return stored + (try statusEvents().map { "event \($0.deviceId) \($0.authorization.rawValue)" })
    }
}

/// Who may report to beacon-ingest, by the caller its connection proved: a phone for its own
/// device only, a gateway for any device; batches from gateways alone. A refusal stores and
/// publishes nothing, and sends no fix to region-monitor.
@Suite(.serialized)
struct IngestAccessTests {
    @Test("ingest.report: a phone for its own device, a gateway for any; a phone cannot withdraw another device's location authorization")
    func reportScope() throws {
        let h = try IngestHarness()
        let own = try h.call(Op.ingestReport, IngestReport(deviceId: "walker", status: IngestHarness.status(.always), fixes: [h.fix()]),
                             as: IngestResult.self, caller: Callers.phone("walker"))
        #expect(own.accepted == 2)
        #expect(try h.nextFix()?.deviceId == "walker")
        let gateway = try h.call(Op.ingestReport, IngestReport(deviceId: "pocket", status: IngestHarness.status(.whenInUse), sightings: [h.ranging()]),
                                 as: IngestResult.self, caller: Callers.gateway)
        #expect(gateway.accepted == 2)
        let before = try h.snapshot()
        #expect(before == ["pocket=whenInUse", "walker=always", "event walker always", "event pocket whenInUse"])

        // Mallory's phone tells beacon-ingest that walker withdrew its authorization.
        let withdraw = IngestReport(deviceId: "walker", status: IngestHarness.status(.denied))
        let refusal = try requireValue(serviceError { try h.call(Op.ingestReport, withdraw, as: IngestResult.self, caller: Callers.phone("mallory")) })
        #expect(refusal.code == "auth.forbidden")
        #expect(refusal.message.contains("\"walker\"") && refusal.message.contains("\"mallory\""))
        // Nor may it put walker somewhere, or feed its sightings.
        let forged = IngestReport(deviceId: "walker", sightings: [h.ranging()], fixes: [h.fix(latitude: 35.6595)])
        #expect(errorCode { try h.call(Op.ingestReport, forged, as: IngestResult.self, caller: Callers.phone("mallory")) } == "auth.forbidden")
        // Roles the op table leaves out, for any device, their own name included.
        for caller in [Callers.operator, Callers.kiosk, Callers.kitchen, Callers.service("order-service")] {
            #expect(errorCode { try h.call(Op.ingestReport, withdraw, as: IngestResult.self, caller: caller) } == "auth.forbidden", "\(caller.name)")
        }
        #expect(try h.snapshot() == before, "nothing stored, no device.status published")
        #expect(h.service.engine.trackedBeacons(of: "walker") == 0)
        // No forged fix went to region-monitor: the next one there is walker's own.
        _ = try h.call(Op.ingestReport, IngestReport(deviceId: "walker", fixes: [h.fix(latitude: 37.40)]), as: IngestResult.self, caller: Callers.phone("walker"))
        let next = try requireValue(try h.nextFix())
        #expect(next.deviceId == "walker" && next.latitude == 37.40)
        #expect(try h.health()["auth.refused"] == "6")
    }

    @Test("a device left out: a phone's report is its key's device; a gateway's report or batch without one is a missing field and stores nothing")
    func leftOutDevice() throws {
        let h = try IngestHarness()
        let own = try h.call(Op.ingestReport, IngestReport(deviceId: nil, status: IngestHarness.status(.always)), as: IngestResult.self, caller: Callers.phone("walker"))
        #expect(own.accepted == 1)
        let before = try h.snapshot()
        #expect(before == ["walker=always", "event walker always"])
        let report = serviceError { try h.call(Op.ingestReport, IngestReport(deviceId: nil, status: IngestHarness.status(.denied)), as: IngestResult.self, caller: Callers.gateway) }
        #expect(report == ServiceError(.invalidField, "missing field body.deviceId"))
        let batch = IngestBatch(reports: [IngestReport(deviceId: "pocket", status: IngestHarness.status(.always)), IngestReport(deviceId: nil, status: IngestHarness.status(.denied))])
        let refused = serviceError { try h.call(Op.ingestBatch, batch, as: IngestBatchResult.self, caller: Callers.gateway) }
        #expect(refused == ServiceError(.invalidField, "missing field body.reports[1].deviceId"))
        #expect(try h.snapshot() == before, "nothing stored, no device.status published")
    }

    @Test("ingest.batch: gateways only; a phone's batch, even of its own device, stores nothing")
    func batchIsForGateways() throws {
        let h = try IngestHarness()
        let batch = IngestBatch(reports: [
            IngestReport(deviceId: "walker", status: IngestHarness.status(.always), sightings: [h.ranging()]),
            IngestReport(deviceId: "pocket", status: IngestHarness.status(.whenInUse)),
        ])
        for caller in [Callers.phone("walker"), Callers.operator, Callers.kiosk, Callers.service("region-monitor")] {
            #expect(errorCode { try h.call(Op.ingestBatch, batch, as: IngestBatchResult.self, caller: caller) } == "auth.forbidden", "\(caller.name)")
        }
        #expect(try h.snapshot().isEmpty)
        let result = try h.call(Op.ingestBatch, batch, as: IngestBatchResult.self, caller: Callers.gateway)
        #expect(result.accepted == 3 && result.rejected == 0)
        #expect(try h.snapshot() == ["pocket=whenInUse", "walker=always", "event walker always", "event pocket whenInUse"])
    }
}
