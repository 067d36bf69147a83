import Foundation
import Messages
@testable import RegionMonitorServer
import ServiceRuntime
import Testing

/// The reactor's time slice bounds the work inside one message (issue 31): sightings past it
/// wait for the next turns, in order, and a device status never overtakes them. Each test sets
/// the slice to 0, so a turn applies exactly one sighting (the service always makes progress),
/// and plays the reactor's part by calling the pending turn itself: nothing here waits on a clock.
@Suite(.serialized)
struct RegionPendingSightingsTests {
    static func arrivals(_ h: RegionHarness) throws -> [String] {
        try h.regionEvents().filter { $0.identifier == "caffe-macs" && $0.state == .satisfied }.map(\.deviceId)
    }

    @Test("a batch's sightings past the time slice wait for the next turns, applied in order, their events announced then")
    func restWaitsForLaterTurns() throws {
        let h = try RegionHarness()
        h.service.sliceSeconds = 0
        try h.sightings(["phone-1", "phone-2", "phone-3"])
        #expect(h.service.consumedSightings == 1 && h.service.pending.count == 2)
        #expect(try Self.arrivals(h) == ["phone-1"])
        #expect(try h.health()["sightings.pending"] == "2")
        h.service.applyPendingTurn()
        #expect(h.service.consumedSightings == 2)
        #expect(try Self.arrivals(h) == ["phone-1", "phone-2"])
        h.service.applyPendingTurn()
        #expect(h.service.consumedSightings == 3 && h.service.pending.isEmpty)
        #expect(try Self.arrivals(h) == ["phone-1", "phone-2", "phone-3"])
        #expect(try h.health()["sightings.pending"] == "0")
        #expect(h.service.sightingToEvent.counts.reduce(0, +) == 1, "one message, its latency counted once, when its last sighting was applied")
    }

    @Test("a sighting arriving behind waiting ones is applied after them; a device status only after every sighting before it")
    func orderKept() throws {
        let h = try RegionHarness()
        h.service.sliceSeconds = 0
        try h.status("phone-3", .always)
        try h.sightings(["phone-1", "phone-2"])
        try h.sighting("phone-3")
        #expect(try Self.arrivals(h) == ["phone-1", "phone-2"], "one a call: phone-2 first, phone-3 waits")
        #expect(h.service.pending.count == 1)
        h.clock.advance(seconds: 1)
        try h.status("phone-3", .denied)
        #expect(h.service.pending.isEmpty)
        let phone3 = try h.announced().compactMap { envelope -> String? in
            switch envelope.body {
            case .region(let event) where event.deviceId == "phone-3" && event.identifier == "caffe-macs": event.state.rawValue
            case .purged(let purged) where purged.deviceId == "phone-3": "purged"
            default: nil
            }
        }
        #expect(phone3 == ["satisfied", "unknown", "purged"], "arrived, then withdrawn: \(phone3)")
    }

    @Test("no more than two batches wait: past that, a message is applied down to the limit at once")
    func bounded() throws {
        let h = try RegionHarness()
        h.service.sliceSeconds = 0
        for batch in 0..<3 {
            try h.sightings((0..<SightingBatch.maxCount).map { "phone-\(batch)-\($0)" })
            #expect(h.service.pending.count <= RegionService.pendingLimit)
        }
        #expect(h.service.pending.count == RegionService.pendingLimit)
        #expect(h.service.consumedSightings == 3 * SightingBatch.maxCount - RegionService.pendingLimit)
        while !h.service.pending.isEmpty { h.service.applyPendingTurn() }
        #expect(h.service.consumedSightings == 3 * SightingBatch.maxCount)
        // (More events than one replay page: the records tell.)
        #expect(try h.host.db.query("SELECT COUNT(*) AS n FROM records WHERE identifier = 'caffe-macs' AND state = 'satisfied'").first?.int("n")
                == 3 * SightingBatch.maxCount)
    }

    @Test("a waiting turn whose write fails drops what waits (counted), the engine reloads, and the phones are announced when sighted again")
    func failedTurnDrops() throws {
        let h = try RegionHarness()
        h.service.sliceSeconds = 0
        let phones = (0..<200).map { "phone-\($0)" }
        try h.sightings(phones)
        let pages = try #require(try h.host.db.query("PRAGMA page_count").first?.int("page_count"))
        try h.host.db.execute("PRAGMA max_page_count=\(pages)")
        while !h.service.pending.isEmpty { h.service.applyPendingTurn() }
        let dropped = h.service.droppedSightings
        #expect(dropped > 0, "the database filled up before every waiting sighting was applied")
        #expect(try h.health()["sightings.dropped"] == "\(dropped)")
        try h.host.db.execute("PRAGMA max_page_count=1000000")
        for phone in phones { try h.sighting(phone) }
        let arrivals = try Self.arrivals(h)
        #expect(Set(arrivals) == Set(phones) && arrivals.count == phones.count, "each announced once")
    }
}
