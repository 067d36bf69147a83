import Foundation
import Messages
@testable import RegionMonitorServer
import SQLite
import Testing

/// Records and nearest answers are keyed by a number region-monitor gives each device it stores
/// (migration 8), in increasing order, so a first-seen device's rows go at the end of their
/// tables: one number per device, kept across restarts, never given to another device, and a
/// version-7 database moved over at its first start.
@Suite(.serialized)
struct RegionStorageNumberTests {
    /// Each device stored, with the numbers its records and its nearest answer have.
    static func numbers(_ h: RegionHarness) throws -> (records: [String: Set<Int64>], nearest: [String: Set<Int64>]) {
        var records: [String: Set<Int64>] = [:], nearest: [String: Set<Int64>] = [:]
        for row in try h.host.db.query("SELECT number, device_id FROM records") {
            records[row.string("device_id"), default: []].insert(row.int64("number"))
        }
        for row in try h.host.db.query("SELECT number, json_extract(value, '$.deviceId') AS device_id FROM nearest") {
            nearest[row.string("device_id"), default: []].insert(row.int64("number"))
        }
        return (records, nearest)
    }

    @Test("first-seen devices are stored under increasing numbers, one per device, kept across a restart; a purged one's rows go by it")
    func numbersPerDevice() throws {
        let h = try RegionHarness()
        for device in ["phone-1", "phone-2", "phone-3"] { try h.sighting(device) }
        var stored = try Self.numbers(h)
        #expect(stored.records == ["phone-1": [1], "phone-2": [2], "phone-3": [3]])
        #expect(stored.nearest == stored.records, "a device's nearest answer under its records' number")

        try h.restart()
        h.clock.advance(seconds: 2)
        try h.sighting("phone-2", minor: 2)
        try h.sighting("phone-4")
        stored = try Self.numbers(h)
        #expect(stored.records["phone-2"] == [2], "kept across the restart")
        #expect(stored.records["phone-4"] == [4] && stored.nearest["phone-4"] == [4], "above every number stored")

        // Withdrawn: its rows go by its number, the others' stay; granted again and seen, it gets a new one.
        try h.status("phone-2", .always)
        h.clock.advance(seconds: 1)
        try h.status("phone-2", .denied)
        stored = try Self.numbers(h)
        #expect(stored.records["phone-2"] == nil && stored.nearest["phone-2"] == nil)
        #expect(stored.records.count == 3 && stored.nearest.count == 3, "other devices keep theirs")
        h.clock.advance(seconds: 1)
        try h.status("phone-2", .always)
        try h.sighting("phone-2")
        stored = try Self.numbers(h)
        #expect(stored.records["phone-2"] == [5] && stored.nearest["phone-2"] == [5])
    }

    @Test("a version-7 database moves to numbers at its first start: every record and nearest answer comes back, one number per device")
    func upgradesVersion7() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("region-numbers-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let t0 = RegionHarness.t0
        let uuid = "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"
        let answers = ["phone-b", "phone-c"].map {
            NearestBeacon(deviceId: $0, beacon: BeaconIdentity(uuid: uuid, major: RegionHarness.macsMajor, minor: 2), proximity: .near, date: t0)
        }
        do {
            let db = try Database(path: folder.appendingPathComponent("region-monitor.sqlite").path)
            try db.migrate("region-monitor", Array(RegionStore.migrations.prefix(7)))
            for device in ["phone-a", "phone-b"] {
                try db.run("""
                    INSERT INTO records (monitor, identifier, device_id, state, event_ms, refinement_uuid, refinement_major, refinement_minor,
                        last_seen_ms, decided) VALUES ('campus', 'caffe-macs', ?, 'satisfied', ?, ?, 1, 2, ?, 'satisfied')
                    """, device, t0.milliseconds, uuid, t0.milliseconds)
            }
            for answer in answers {
                try db.run("INSERT INTO nearest (device_id, value) VALUES (?, ?)", answer.deviceId, String(decoding: Wire.encode(answer), as: UTF8.self))
            }
            db.close()
        }
        let h = try RegionHarness(start: t0.adding(seconds: 1), folder: folder)
        for device in ["phone-a", "phone-b"] {
            #expect(try h.record(device) == RegionEvent(monitor: "campus", identifier: "caffe-macs", deviceId: device, state: .satisfied,
                                                        refinement: BeaconIdentity(uuid: uuid, major: 1, minor: 2), flags: [], date: t0))
        }
        for answer in answers { #expect(try h.nearest(answer.deviceId).beacon == answer.beacon) }
        let stored = try Self.numbers(h)
        #expect(stored.records.keys.sorted() == ["phone-a", "phone-b"] && stored.nearest.keys.sorted() == ["phone-b", "phone-c"])
        #expect(stored.records.values.allSatisfy { $0.count == 1 } && stored.nearest.values.allSatisfy { $0.count == 1 })
        #expect(stored.records["phone-b"] == stored.nearest["phone-b"], "one number per device across both tables")
        let all = Set(stored.records.values.flatMap { $0 }).union(stored.nearest.values.flatMap { $0 })
        #expect(all.count == 3 && all.allSatisfy { (1...3).contains($0) })
        try h.sighting("phone-d")
        #expect(try Self.numbers(h).records["phone-d"] == [4], "a new device above the upgrade's numbers")
        #expect(try h.host.db.query("SELECT name FROM sqlite_master WHERE name = 'device_numbers'").isEmpty, "the upgrade's own table is gone")
    }

    @Test("rows of one device found under two numbers at a restore are moved to one, and no number stored is given again")
    func misfiledRowsMoved() throws {
        let h = try RegionHarness()
        try h.sighting("phone-1")
        let answer = try h.nearest("phone-1").beacon
        #expect(answer != nil)
        try h.host.db.run("UPDATE nearest SET number = 7")
        try h.restart()
        var stored = try Self.numbers(h)
        #expect(stored.records["phone-1"] == [1] && stored.nearest["phone-1"] == [1])
        #expect(try h.nearest("phone-1").beacon == answer)
        try h.sighting("phone-2")
        stored = try Self.numbers(h)
        #expect(stored.records["phone-2"] == [8], "7 was stored: not given again")
    }
}
