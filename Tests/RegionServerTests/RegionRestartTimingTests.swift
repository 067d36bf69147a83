import Foundation
import Messages
@testable import RegionMonitorServer
import Testing
import TestSupport

/// Exits after a restart fire when they are due: each satisfied beacon record's last matching
/// sighting is saved in batches (the save timer, not each sighting) and restored; a device seen
/// again after its exit was due gets the exit, then a new arrival. The clock is the test's; the
/// restart reopens the same SQLite file without any orderly shutdown, as after kill -9.
@Suite(.serialized)
struct RegionRestartTimingTests {
    /// The stored last sighting of a device's Caffè Macs record, in milliseconds (nil: none).
    static func storedLastSeen(_ h: RegionHarness, _ deviceId: String) throws -> Int64? {
        try h.host.db.query("SELECT last_seen_ms FROM records WHERE identifier = 'caffe-macs' AND device_id = ?", deviceId).first?
            .optionalInt64("last_seen_ms")
    }

    @Test("a device that walked away before the crash exits one timeout after its last sighting, not one timeout after the restart")
    func exitDueAfterRestart() throws {
        let h = try RegionHarness(arguments: ["--beacon-exit-seconds", "30", "--sighting-save-seconds", "5"])
        // Seen every second for 20 s, the save timer running every second as the reactor runs it.
        for second in 0...20 {
            try h.sighting("phone-1")
            try h.service.saveSightingTimes()
            if second < 20 { h.clock.advance(seconds: 1) }
        }
        let stored = try #require(try Self.storedLastSeen(h, "phone-1"))
        #expect(stored >= RegionHarness.t0.adding(seconds: 15).milliseconds, "saved at least every 5 s while seen")
        #expect(stored < RegionHarness.t0.adding(seconds: 20).milliseconds, "not written by each sighting")
        // Quiet since the last save: the next save writes the exact last sighting.
        h.clock.advance(seconds: 1)
        try h.service.saveSightingTimes()
        #expect(try Self.storedLastSeen(h, "phone-1") == RegionHarness.t0.adding(seconds: 20).milliseconds)

        h.clock.advance(seconds: 4)
        try h.restart()
        let before = try h.regionEvents()
        h.clock.advance(seconds: 24.999)      // t0 + 49.999
        try h.service.tick()
        #expect(try h.regionEvents() == before, "not yet due")
        h.clock.advance(seconds: 0.001)       // t0 + 50: 30 s after the last sighting
        try h.service.tick()
        let exit = try #require(try h.regionEvents().last)
        #expect(exit == RegionEvent(monitor: "campus", identifier: "caffe-macs", deviceId: "phone-1", state: .unsatisfied, refinement: nil,
                                    flags: [], date: RegionHarness.t0.adding(seconds: 50)))
    }

    @Test("the save walk looks at a hundredth of the device table a call, at least 64 and at most 4,096: 300 phones seen twice are deferred, then saved 64 a call")
    func saveWalkSizedToTheTable() throws {
        #expect([0, 6_400, 6_401, 100_000, 409_600, 1_000_000].map(RegionService.saveVisits(slots:)) == [64, 64, 65, 1_000, 4_096, 4_096])
        let h = try RegionHarness(arguments: ["--beacon-exit-seconds", "30", "--sighting-save-seconds", "5"])
        let phones = (0..<300).map { "walk-\($0)" }
        for phone in phones { try h.sighting(phone) }     // arrivals: each event stores its last sighting (t0)
        h.clock.advance(seconds: 1)
        for phone in phones { try h.sighting(phone) }     // still there: an unsaved sighting at t0 + 1 each
        h.clock.advance(seconds: 1)
        let second = RegionHarness.t0.adding(seconds: 1).milliseconds
        func saved() throws -> Int {
            try h.host.db.query("SELECT COUNT(*) AS n FROM records WHERE identifier = 'caffe-macs' AND last_seen_ms = ?", second).first?.int("n") ?? -1
        }
        var counts: [Int] = []
        for _ in 0..<10 {
            try h.service.saveSightingTimes()
            counts.append(try saved())
        }
        // 64 slots a call: the first four calls find each phone seen since the last save and defer
        // it; the fifth ends the pass (44 deferred) and starts the next (20 quiet, saved); then 64
        // a call until all 300 are. (4,096 a call deferred all 300 at once, then saved 100 a call.)
        #expect(counts == [0, 0, 0, 0, 20, 84, 148, 212, 276, 300])
    }

    @Test("a device still seen when the service died is saved at most one save interval behind, and stays when heard again")
    func stillThereAtTheCrash() throws {
        let h = try RegionHarness(arguments: ["--beacon-exit-seconds", "30", "--sighting-save-seconds", "5"])
        for _ in 0...12 {
            try h.sighting("phone-1")
            try h.service.saveSightingTimes()
            h.clock.advance(seconds: 1)
        }
        // Killed right after the sighting at t0 + 12, before a quiet save.
        let stored = try #require(try Self.storedLastSeen(h, "phone-1"))
        #expect(stored >= RegionHarness.t0.adding(seconds: 12 - 5).milliseconds && stored <= RegionHarness.t0.adding(seconds: 12).milliseconds)
        try h.restart()
        let before = try h.regionEvents()
        h.clock.advance(seconds: 3)
        try h.service.tick()
        try h.sighting("phone-1")
        for _ in 0..<120 {
            h.clock.advance(seconds: 0.5)
            try h.service.tick()
            if h.clock.now() < RegionHarness.t0.adding(seconds: 40) { try h.sighting("phone-1") }
        }
        #expect(try h.regionEvents().dropFirst(before.count).map(\.state) == [.unsatisfied], "only the exit after it left at last, nothing at the restart")
    }

    @Test("a device back after its exit was due gets the exit, dated when it was due, then a new arrival")
    func backAfterTheExitWasDue() throws {
        let h = try RegionHarness(arguments: ["--beacon-exit-seconds", "30"])
        try h.sighting("phone-1")
        h.clock.advance(seconds: 45)
        try h.restart()
        let before = try h.regionEvents()
        // Heard before the first tick after the restart.
        try h.sighting("phone-1", minor: 2)
        let events = try h.regionEvents().dropFirst(before.count)
        #expect(events.map(\.state) == [.unsatisfied, .satisfied])
        #expect(events.first?.date == RegionHarness.t0.adding(seconds: 30) && events.last?.date == RegionHarness.t0.adding(seconds: 45))
        #expect(events.last?.refinement?.minor == 2)
        // The timer has nothing left to announce for it.
        try h.service.tick()
        #expect(try h.regionEvents().count == before.count + 2)
    }

    @Test("without a restart too: a sighting after the exit was due but before the timer ran announces both")
    func lateTimer() throws {
        let h = try RegionHarness(arguments: ["--beacon-exit-seconds", "30"])
        try h.sighting("phone-1")
        h.clock.advance(seconds: 31)
        try h.sighting("phone-1")
        #expect(try h.regionEvents().map(\.state) == [.satisfied, .unsatisfied, .satisfied])
    }

    @Test("a record from before last sightings were saved exits one timeout after the restart (nothing better is known)")
    func recordWithoutStoredSighting() throws {
        let h = try RegionHarness(arguments: ["--beacon-exit-seconds", "30"])
        try h.sighting("phone-1")
        try h.host.db.run("UPDATE records SET last_seen_ms = NULL")
        h.clock.advance(seconds: 10)
        try h.restart()
        h.clock.advance(seconds: 29.999)
        try h.service.tick()
        #expect(try h.regionEvents().count == 1)
        h.clock.advance(seconds: 0.001)
        try h.service.tick()
        #expect(try h.regionEvents().last?.date == RegionHarness.t0.adding(seconds: 40))
    }
}
