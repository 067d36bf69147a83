import Foundation
import Messages
@testable import RegionMonitorServer
import SQLite
import Testing

/// A record's last event is kept as columns of its row (migration 6), not as the event's JSON:
/// what is written comes back whole, and a database from before moves over at its first start.
@Suite(.serialized)
struct RegionRecordColumnsTests {
    static let uuid = "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("region-columns-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("a record's state, date, flags and refinement are read back as they were written")
    func roundTrip() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = try Database(path: folder.appendingPathComponent("region-monitor.sqlite").path)
        let store = RegionStore(db: db)
        try store.migrate()
        let events = [
            RegionEvent(monitor: "campus", identifier: "caffe-macs", deviceId: "phone-1", state: .satisfied,
                        refinement: BeaconIdentity(uuid: Self.uuid, major: 1, minor: 3), flags: [], date: Timestamp(milliseconds: 1_795_464_000_123)),
            RegionEvent(monitor: "campus", identifier: "caffe-macs", deviceId: "phone-2", state: .unknown, refinement: nil,
                        flags: [.accuracyLimited, .authorizationDenied], date: Timestamp(milliseconds: 1_795_464_000_456)),
            RegionEvent(monitor: "ops", identifier: "dock", deviceId: "phone-1", state: .unsatisfied,
                        refinement: BeaconIdentity(uuid: "11111111-2222-3333-4444-555555555555", major: 7, minor: 65_535), flags: [.conditionUnsupported],
                        date: Timestamp(milliseconds: 1_795_464_000_789)),
        ]
        try db.transaction { for event in events { try store.saveRecord(event, number: event.deviceId == "phone-1" ? 1 : 2) } }
        let read = try store.records().sorted { ($0.monitor, $0.deviceId) < ($1.monitor, $1.deviceId) }
        #expect(read.map(\.lastEvent) == events)
        #expect(read.map(\.decided) == [.satisfied, nil, .unsatisfied])
        #expect(read[0].lastSeen == events[0].date, "a satisfied event's date is its last matching sighting until one is saved")
        #expect(try db.query("SELECT COUNT(*) AS n FROM records WHERE last_event IS NOT NULL").first?.int("n") == 0, "no JSON copy")
    }

    @Test("records of a version-5 database are restored from their JSON, and written as columns once they change")
    func readsOlderRows() throws {
        let folder = try Self.temporaryFolder()
        do {
            let db = try Database(path: folder.appendingPathComponent("region-monitor.sqlite").path)
            try db.migrate("region-monitor", Array(RegionStore.migrations.prefix(5)))
            func insert(_ device: String, _ state: String, _ json: String, decided: String?) throws {
                try db.run("INSERT INTO records (monitor, identifier, device_id, state, last_event, last_seen_ms, decided) VALUES ('campus', 'caffe-macs', ?, ?, ?, NULL, ?)",
                           device, state, json, decided)
            }
            try insert("phone-1", "satisfied", #"{"date":"2026-11-23T20:00:00.123Z","deviceId":"phone-1","flags":[],"identifier":"caffe-macs","monitor":"campus","refinement":{"major":1,"minor":2,"uuid":"\#(Self.uuid)"},"state":"satisfied"}"#, decided: "satisfied")
            try insert("phone-2", "unknown", #"{"date":"2026-11-23T19:59:59.001Z","deviceId":"phone-2","flags":["accuracyLimited","authorizationDenied"],"identifier":"caffe-macs","monitor":"campus","state":"unknown"}"#, decided: "unsatisfied")
            db.close()
        }
        let h = try RegionHarness(start: RegionHarness.t0.adding(seconds: 5), folder: folder)
        #expect(try h.record("phone-1") == RegionEvent(monitor: "campus", identifier: "caffe-macs", deviceId: "phone-1", state: .satisfied,
                                                       refinement: BeaconIdentity(uuid: Self.uuid, major: 1, minor: 2), flags: [],
                                                       date: Timestamp(milliseconds: 1_795_464_000_123)))
        let unknown = RegionEvent(monitor: "campus", identifier: "caffe-macs", deviceId: "phone-2", state: .unknown, refinement: nil,
                                  flags: [.accuracyLimited, .authorizationDenied], date: Timestamp(milliseconds: 1_795_463_999_001))
        #expect(try h.record("phone-2") == unknown)
        #expect(try h.count("SELECT COUNT(*) AS n FROM records WHERE device_id = ? AND last_event IS NOT NULL AND event_ms IS NULL", "phone-2") == 1,
                "not rewritten at the upgrade")
        // phone-2 is heard at Caffè Macs: its record changes and is written as columns.
        try h.sighting("phone-2")
        let arrival = RegionEvent(monitor: "campus", identifier: "caffe-macs", deviceId: "phone-2", state: .satisfied,
                                  refinement: BeaconIdentity(uuid: Self.uuid, major: 1, minor: 1), flags: [], date: h.clock.now())
        #expect(try h.regionEvents().last == arrival)
        #expect(try h.count("SELECT COUNT(*) AS n FROM records WHERE device_id = ? AND last_event IS NULL AND event_ms IS NOT NULL", "phone-2") == 1)
        try h.restart()
        #expect(try h.record("phone-2") == arrival)
        #expect(try h.record("phone-1")?.refinement?.minor == 2)
    }
}
