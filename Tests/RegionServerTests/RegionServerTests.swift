import Foundation
import Messages
@testable import RegionMonitorServer
import ServiceRuntime
import Testing
import TestSupport

/// region-monitor's server in-process with the clock in the test's hand, on a real SQLite file:
/// exits fired by the timer, records and monitors that survive a restart without being
/// announced again, fixes kept no longer than the retention, and a withdrawn authorization that
/// drops a device's location data. No sleeping: time moves when the test moves it.
@Suite(.serialized)
struct RegionServerTests {
    @Test("a device no longer heard leaves its café when the timer runs past the exit timeout, not before")
    func exitFiresFromTheTimer() throws {
        let h = try RegionHarness(arguments: ["--beacon-exit-seconds", "30"])
        try h.sighting("phone-1")
        let arrival = try #require(try h.regionEvents().last)
        #expect(arrival.identifier == "caffe-macs" && arrival.state == .satisfied && arrival.refinement?.minor == 1)
        #expect(try h.nearest("phone-1").cafeId == "caffe-macs")

        h.clock.advance(seconds: 29.999)
        try h.service.tick()
        #expect(try h.regionEvents().count == 1, "one millisecond before the timeout the device is still there")
        #expect(try h.record("phone-1")?.state == .satisfied)

        h.clock.advance(seconds: 0.001)
        try h.service.tick()
        let events = try h.regionEvents()
        #expect(events.count == 2)
        #expect(events.last == RegionEvent(monitor: "campus", identifier: "caffe-macs", deviceId: "phone-1", state: .unsatisfied, refinement: nil,
                                           flags: [], date: RegionHarness.t0.adding(seconds: 30)))
        #expect(try h.record("phone-1")?.state == .unsatisfied, "the stored record follows the event")
        #expect(try h.nearest("phone-1").cafeId == nil, "a café gone silent is no longer the nearest")
        // Ticking again announces nothing new.
        h.clock.advance(seconds: 60)
        try h.service.tick()
        #expect(try h.regionEvents().count == 2)
    }

    @Test("the nearest answer ends --nearest-freshness-seconds after the last near sighting, published by the timer, though the beacon is still heard far")
    func nearestEndsAtFreshness() throws {
        let h = try RegionHarness(arguments: ["--beacon-exit-seconds", "30", "--nearest-freshness-seconds", "10"])
        try h.sighting("phone-1")
        for _ in 1...9 {
            h.clock.advance(seconds: 1)
            try h.sighting("phone-1", proximity: .far)
            try h.service.tick()
        }
        h.clock.advance(seconds: 0.999)
        try h.service.tick()
        #expect(try h.nearest("phone-1").cafeId == "caffe-macs", "a millisecond before the freshness runs out")
        h.clock.advance(seconds: 0.001)
        try h.service.tick()
        let nearest = try h.announced().compactMap { if case .nearest(let value) = $0.body { value } else { nil } }
        #expect(nearest.map(\.beacon?.minor) == [1, nil])
        #expect(nearest.last?.date == RegionHarness.t0.adding(seconds: 10))
        let answer = try h.nearest("phone-1")
        #expect(answer.beacon == nil && answer.cafeId == nil, "nearest.get agrees with what was published")
        #expect(try h.record("phone-1")?.state == .satisfied, "the café's beacon condition still waits for its exit")
    }

    @Test("records survive a restart on the same file: nothing unchanged is announced again, and a device gone meanwhile exits when it was due")
    func recordsSurviveARestart() throws {
        let h = try RegionHarness(arguments: ["--beacon-exit-seconds", "30"])
        try h.sighting("phone-1")
        try h.sighting("phone-2", minor: 2)
        let before = try h.announced()
        #expect(before.count == 4, "two arrivals and two nearest beacons")

        h.clock.advance(seconds: 10)
        try h.restart()
        #expect(try h.announced() == before, "a restart announces nothing")
        let restored = try #require(try h.record("phone-1"))
        #expect(restored.state == .satisfied && restored.date == RegionHarness.t0 && restored.refinement?.minor == 1)
        #expect(try h.nearest("phone-2").stationId == "salad")

        // phone-1 is still there: hearing it again before its exit is due changes nothing, so
        // nothing is published for it. phone-2's nearest answer, restored as heard near at the
        // restart, ended one nearest freshness (10 s) after it: the one thing published.
        h.clock.advance(seconds: 19)
        try h.sighting("phone-1")
        try h.service.tick()
        let afterRestart = try h.announced()
        #expect(Array(afterRestart.prefix(before.count)) == before)
        #expect(afterRestart.dropFirst(before.count).map(\.body) == [.nearest(NearestBeacon(deviceId: "phone-2", beacon: nil, proximity: nil, date: RegionHarness.t0.adding(seconds: 20)))],
                "dated when it ended, one freshness after the restart, though the timer ran later")
        #expect(try h.nearest("phone-1").stationId != nil && h.nearest("phone-2").beacon == nil)

        // phone-2 went quiet while the service was down: it exits when that was due, one timeout
        // after its last sighting (not one timeout after the restart).
        h.clock.advance(seconds: 0.999)
        try h.service.tick()
        #expect(try h.regionEvents().count == 2)
        h.clock.advance(seconds: 0.001)
        try h.service.tick()
        let exit = try #require(try h.regionEvents().last)
        #expect(exit.deviceId == "phone-2" && exit.state == .unsatisfied && exit.date == RegionHarness.t0.adding(seconds: 30))
        #expect(try h.record("phone-1")?.state == .satisfied, "phone-1 was heard after the restart")
    }

    @Test("a monitor an app opened and its conditions survive a restart, with their owner")
    func monitorsSurviveARestart() throws {
        let h = try RegionHarness()
        _ = try h.call(Op.monitorOpen, MonitorOwnership(monitor: "pickup", owner: "com.example.cafe"), as: MonitorInfo.self)
        let uuid = h.catalog.beaconUUID.lowercased()
        _ = try h.call(Op.monitorAdd, AddCondition(monitor: "pickup", owner: "com.example.cafe", identifier: "shelf",
                                                   condition: .beacon(uuid: uuid, major: 1, minor: 3, exitTimeout: 5)), as: MonitorRecord.self)
        _ = try h.call(Op.monitorAdd, AddCondition(monitor: "pickup", owner: "com.example.cafe", identifier: "counter",
                                                   condition: .beacon(uuid: uuid, major: 1, minor: 1, exitTimeout: 5)), as: MonitorRecord.self)
        try h.sighting("phone-1", minor: 3)
        try h.restart()

        let list = try h.call(Op.monitorList, Empty(), as: MonitorList.self).monitors
        #expect(list.first { $0.monitor == "pickup" } == MonitorInfo(monitor: "pickup", owner: "com.example.cafe", conditions: 2, conditionLimit: 20, builtIn: false))
        #expect(try h.call(Op.monitorIdentifiers, MonitorQuery(monitor: "pickup"), as: MonitorIdentifiers.self).identifiers == ["counter", "shelf"])
        let shelf = try h.call(Op.monitorRecord, RecordQuery(monitor: "pickup", identifier: "shelf", deviceId: "phone-1"), as: MonitorRecord.self)
        #expect(shelf.condition == .beacon(uuid: h.catalog.beaconUUID.uppercased(), major: 1, minor: 3, exitTimeout: 5), "stored as made canonical")
        #expect(shelf.lastEvent?.state == .satisfied)
        // The condition's own exit timeout still applies after the restart.
        h.clock.advance(seconds: 5)
        try h.service.tick()
        #expect(try h.record("phone-1", "shelf", monitor: "pickup")?.state == .unsatisfied)
        // Only its owner may change it, as before the restart.
        #expect(errorCode {
            try h.call(Op.monitorRemove, RemoveCondition(monitor: "pickup", owner: "someone-else", identifier: "shelf"), as: RemovedCondition.self)
        } == "monitor.notOwner")
    }

    @Test("fixes are deleted once older than the retention, by the hourly sweep and at start")
    func fixesExpire() throws {
        let h = try RegionHarness(arguments: ["--fix-retention-seconds", "900"])
        try h.fix("phone-1")
        #expect(try h.confirm("phone-1", acquiredAt: h.clock.now()).result == .yes)
        h.clock.advance(seconds: 600)
        try h.fix("phone-1", metersNorth: 40)
        #expect(try h.count("SELECT COUNT(*) AS n FROM fixes WHERE device_id = ?", "phone-1") == 2)

        // 900 s after the first fix it is still inside the retention; a millisecond later it is not.
        h.clock.set(RegionHarness.t0.adding(seconds: 900))
        try h.service.expireFixes()
        #expect(try h.count("SELECT COUNT(*) AS n FROM fixes WHERE device_id = ?", "phone-1") == 2)
        h.clock.set(RegionHarness.t0.adding(seconds: 900.001))
        try h.service.expireFixes()
        #expect(try h.count("SELECT COUNT(*) AS n FROM fixes WHERE device_id = ?", "phone-1") == 1)
        #expect(h.service.engine.fixCount(deviceId: "phone-1") == 1, "memory forgets it too")
        #expect(try h.confirm("phone-1", acquiredAt: RegionHarness.t0).reason == .noFreshFix, "an expired fix confirms nothing")

        // Down past the second fix's retention: it is deleted when the service starts again.
        h.clock.set(RegionHarness.t0.adding(seconds: 1_500.001))
        try h.restart()
        #expect(try h.count("SELECT COUNT(*) AS n FROM fixes WHERE device_id = ?", "phone-1") == 0)
        #expect(h.service.engine.fixCount(deviceId: "phone-1") == 0)
    }

    @Test("a withdrawal deletes the device's records of every condition, an app's and one scoped to it, by key: records have no index by device")
    func withdrawalDeletesRecordsOfEveryCondition() throws {
        let h = try RegionHarness()
        #expect(try h.host.db.query("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'index' AND name = 'records_device'").first?.int("n") == 0,
                "migration 7")
        _ = try h.call(Op.monitorOpen, MonitorOwnership(monitor: "pickup", owner: "com.example.cafe"), as: MonitorInfo.self)
        let uuid = h.catalog.beaconUUID.lowercased()
        _ = try h.call(Op.monitorAdd, AddCondition(monitor: "pickup", owner: "com.example.cafe", identifier: "shelf",
                                                   condition: .beacon(uuid: uuid, major: RegionHarness.macsMajor, minor: 1)), as: MonitorRecord.self)
        _ = try h.call(Op.monitorAdd, AddCondition(monitor: "pickup", owner: "com.example.cafe", identifier: "mine",
                                                   condition: .beacon(uuid: uuid, major: RegionHarness.macsMajor, minor: nil), deviceId: "phone-1"),
                       as: MonitorRecord.self)
        for device in ["phone-1", "phone-2"] {
            try h.status(device, .always)
            try h.sighting(device, minor: 1)
        }
        let identifiers = try h.host.db.query("SELECT monitor || '/' || identifier AS k FROM records WHERE device_id = 'phone-1' ORDER BY k").map { $0.string("k") }
        #expect(identifiers == ["campus/caffe-macs", "pickup/mine", "pickup/shelf"])
        let others = try h.count("SELECT COUNT(*) AS n FROM records WHERE device_id = ?", "phone-2")
        #expect(others == 2)

        h.clock.advance(seconds: 1)
        try h.status("phone-1", .denied)
        #expect(try h.count("SELECT COUNT(*) AS n FROM records WHERE device_id = ?", "phone-1") == 0)
        #expect(try h.count("SELECT COUNT(*) AS n FROM records WHERE device_id = ?", "phone-2") == others, "other devices keep theirs")
    }

    @Test("a device that withdraws authorization has its location data dropped, is told so, and contributes nothing until granted again")
    func withdrawnAuthorizationDropsLocation() throws {
        let h = try RegionHarness()
        try h.status("phone-1", .always)
        try h.sighting("phone-1")
        try h.fix("phone-1")
        try h.sighting("phone-2")
        #expect(try h.count("SELECT COUNT(*) AS n FROM records WHERE device_id = ?", "phone-1") > 0)

        let known = Set(try h.regionEvents().filter { $0.deviceId == "phone-1" }.map(\.identifier))
        #expect(known.contains("caffe-macs") && known.contains("caffe-macs.area"))
        let before = try h.announced().count

        h.clock.advance(seconds: 1)
        try h.status("phone-1", .denied)
        // Every record the device had announced gets a last event, then the purge is announced.
        let after = try h.announced().dropFirst(before).map(\.body)
        #expect(after.last == .purged(LocationPurged(deviceId: "phone-1", reason: .denied, date: h.clock.now())))
        let lastEvents = after.dropLast().compactMap { if case .region(let event) = $0 { event } else { nil } }
        #expect(lastEvents.count == after.count - 1 && Set(lastEvents.map(\.identifier)) == known)
        #expect(lastEvents.allSatisfy { $0.deviceId == "phone-1" && $0.state == .unknown && $0.flags == [.authorizationDenied] && $0.date == h.clock.now() })
        for table in ["records", "fixes"] {
            #expect(try h.count("SELECT COUNT(*) AS n FROM \(table) WHERE device_id = ?", "phone-1") == 0, "\(table)")
        }
        #expect(try h.count("SELECT COUNT(*) AS n FROM nearest WHERE json_extract(value, '$.deviceId') = ?", "phone-1") == 0, "nearest")
        #expect(try h.count("SELECT COUNT(*) AS n FROM records WHERE device_id = ?", "phone-2") == 1, "other devices keep theirs")
        let nearest = try h.nearest("phone-1")
        #expect(nearest.beacon == nil && nearest.cafesByDistance.isEmpty)
        #expect(try h.confirm("phone-1", acquiredAt: h.clock.now()).reason == .authorizationDenied)

        // Sightings and fixes after the withdrawal are refused, also after a restart.
        let published = try h.announced().count
        try h.sighting("phone-1")
        try h.fix("phone-1")
        try h.restart()
        try h.sighting("phone-1")
        #expect(try h.announced().count == published)
        #expect(try h.count("SELECT COUNT(*) AS n FROM fixes WHERE device_id = ?", "phone-1") == 0)
        #expect(try h.health()["sightings.refused"] == "1", "counted since the restart")
        #expect(try h.nearest("phone-1").beacon == nil)

        // Granted again, the device is located again.
        try h.status("phone-1", .whenInUse)
        try h.sighting("phone-1")
        #expect(try h.record("phone-1")?.state == .satisfied)
    }

    @Test("settings refuse what the option kinds let through but the service cannot use, with region-monitor's one-line messages")
    func settingsRefusals() throws {
        let cases: [([String], String?)] = [
            ([], nil),
            (["--shards", "2", "--shard", "1"], nil),
            (["--shard", "3"], "--shard must be empty or 0…0, not \"3\""),
            (["--shards", "2", "--shard", "x"], "--shard must be empty or 0…1, not \"x\""),
        ]
        for (arguments, refusal) in cases {
            let config = try Configuration(program: "region-monitor", specs: RegionMonitorSettings.specs, arguments: arguments, environment: [:])
            do {
                let settings = try RegionMonitorSettings(config)
                #expect(refusal == nil, "\(arguments) was taken")
                #expect(settings.engine.exitTimeout == 30 && settings.tickSeconds == 0.5 && settings.monitor == "campus")
            } catch {
                #expect(error.message == refusal, "\(arguments)")
            }
        }
        let kinds: [([String], String)] = [
            (["--beacon-exit-seconds", "0"], "region-monitor: --beacon-exit-seconds must be a number of seconds more than 0, not \"0\""),
            (["--tick-seconds", "0", "--fix-retention-seconds", "0"], "region-monitor: --tick-seconds must be a number of seconds more than 0, not \"0\""),
            (["--condition-limit", "0"], "region-monitor: --condition-limit must be a whole number 1…100000, not \"0\""),
            (["--monitor-limit", "0"], "region-monitor: --monitor-limit must be a whole number 1…100000, not \"0\""),
            (["--hysteresis-meters", "-1"], "region-monitor: --hysteresis-meters must be a number ≥ 0, not \"-1\""),
            (["--monitor", "lunch"], "region-monitor: unknown flag --monitor (see --help)"),
        ]
        for (arguments, refusal) in kinds {
            let error = #expect(throws: ConfigurationError.self, "\(arguments)") {
                try Configuration(program: "region-monitor", specs: RegionMonitorSettings.specs, arguments: arguments, environment: [:])
            }
            #expect(error?.message == refusal)
        }
        let sharded = try RegionMonitorSettings(Configuration(program: "region-monitor", specs: RegionMonitorSettings.specs,
                                                              arguments: ["--shards", "2", "--shard", "1"], environment: [:]))
        #expect(sharded.shardTag == "s1")
    }
}
