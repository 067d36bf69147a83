import Foundation
import Messages
@testable import RegionMonitorServer
import ServiceRuntime
import Testing
import TestSupport

/// region-monitor's engine moves in memory before its effects are written: when the storage
/// refuses the write, nothing may be believed announced that nobody heard.
@Suite(.serialized)
struct RegionStorageFailureTests {
    @Test("an arrival whose write failed on a full database is announced by the next sighting once there is room")
    func arrivalAnnouncedAfterFullDisk() throws {
        let h = try RegionHarness(arguments: ["--beacon-exit-seconds", "30"])
        try h.status("phone-1", .whenInUse)
        let pages = try #require(try h.host.db.query("PRAGMA page_count").first?.int("page_count"))
        try h.host.db.execute("PRAGMA max_page_count=\(pages)")
        // Fill what is left on the last pages; the first arrival that needs a new page fails.
        var failed = false
        for n in 0..<200 where !failed {
            do {
                try h.sighting("phone-\(n + 2)")
            } catch {
                failed = true
                // What the bus consumer does after a batch the storage could not take.
                h.host.bus.consumer?.onRolledBack?()
            }
        }
        #expect(failed, "the database filled up")
        #expect(try h.health()["reasons"] == "storage.full")
        let announced = Set(try h.regionEvents().map(\.deviceId))
        try h.host.db.execute("PRAGMA max_page_count=1000000")
        // Every phone is sighted again: each not announced before (the failed one among them) is
        // announced now, and nobody already announced is announced twice.
        for n in 0..<200 { try h.sighting("phone-\(n + 2)") }
        let events = try h.regionEvents().filter { $0.identifier == "caffe-macs" }
        let perDevice = Dictionary(grouping: events, by: \.deviceId)
        #expect(perDevice.count == 200, "every sighted phone has its arrival: \(perDevice.count)")
        #expect(perDevice.values.allSatisfy { $0.count == 1 && $0[0].state == .satisfied }, "each announced once")
        #expect(announced.count < 200)
    }
}
