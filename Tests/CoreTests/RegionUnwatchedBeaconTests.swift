import Foundation
import Messages
import RegionMonitorCore
import Testing

/// Phones choose the beacon UUIDs they report: only UUIDs that conditions name are held, so any
/// number of invented ones costs nothing and can never trap; matching the real ones still works.
@Suite("Region engine: beacons of UUIDs no condition names")
struct RegionUnwatchedBeaconTests {
    static let macsSalad = BeaconIdentity(uuid: campusUUID, major: 1, minor: 2)

    static func engine() -> RegionEngine {
        try! RegionEngine(monitor: "campus", conditions: [BeaconCondition(identifier: "macs", uuid: campusUUID, major: 1, exitTimeout: 30)])
    }

    static func sighting(_ beacon: BeaconIdentity, device: String = "phone-1", at seconds: Double) -> Sighting {
        // As beacon-ingest sends it for a phone that has heard the beacon for a while (its mean of 15 readings).
        Sighting(deviceId: device, beacon: beacon, rssi: -60, measuredPower: -59, accuracy: 0.5, proximity: .immediate, observedAt: .at(seconds),
                 meanRssi: -60, readings: 15)
    }

    @Test("100,000 distinct unknown UUIDs: nothing announced, no UUID held, the campus beacon still matches and is the nearest")
    func manyUnknownUUIDs() {
        let engine = Self.engine()
        #expect(engine.beaconUUIDs == 1)
        var generator = SystemRandomNumberGenerator()
        for i in 0..<100_000 {
            let uuid = UUID(uuid: (UInt8.random(in: 0...255, using: &generator), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                   UInt8(i & 0xFF), UInt8((i >> 8) & 0xFF), UInt8((i >> 16) & 0xFF), 1)).uuidString
            let effects = engine.sighting(Self.sighting(BeaconIdentity(uuid: uuid, major: 1, minor: 2), device: "phone-\(i % 10)", at: Double(i) / 1000))
            if !effects.unwatched || !effects.isEmpty {
                Issue.record("sighting \(i) of \(uuid) was not simply dropped: \(effects)")
                break
            }
        }
        #expect(engine.beaconUUIDs == 1, "no sighting interned its UUID")
        #expect(engine.trackedDevices == 10, "one slot per device, not per UUID")
        #expect((0..<10).allSatisfy { engine.nearestBeacon(deviceId: "phone-\($0)") == nil }, "an unknown UUID is never the nearest beacon")

        let real = engine.sighting(Self.sighting(Self.macsSalad, at: 101))
        #expect(real.events.map(\.state) == [.satisfied] && real.events.first?.refinement == Self.macsSalad)
        #expect(real.nearest.map(\.beacon) == [Self.macsSalad])
        #expect(engine.tick(now: .at(131)).events.map(\.state) == [.unsatisfied], "the exit still fires on time")
    }

    @Test("a major or minor outside 0…65535 matches nothing: it is never truncated into a real one", arguments: [
        (65_537, 2), (1, 65_538), (-65_535, 2), (Int.max, Int.min),
    ])
    func outOfRangeMajorMinor(major: Int, minor: Int) {
        let engine = Self.engine()
        let effects = engine.sighting(Self.sighting(BeaconIdentity(uuid: campusUUID, major: major, minor: minor), at: 0))
        #expect(effects.unwatched && effects.isEmpty)
        #expect(engine.record(deviceId: "phone-1", identifier: "macs") == nil)
    }

    @Test("a UUID a condition names is held while the condition exists and matched again when it is added back")
    func retiredAndRenamed() throws {
        let engine = Self.engine()
        let other = "11111111-2222-3333-4444-555555555555"
        try engine.open(monitor: "lunch", owner: "app")
        try engine.add(ConditionSpec(monitor: "lunch", identifier: "x", condition: .beacon(uuid: other, major: nil, minor: nil)), owner: "app", now: .at(0))
        #expect(engine.beaconUUIDs == 2)
        #expect(engine.sighting(Self.sighting(BeaconIdentity(uuid: other, major: 9, minor: 9), at: 1)).events.map(\.state) == [.satisfied])
        _ = try engine.remove(monitor: "lunch", identifier: "x", owner: "app")
        // Retired: a sighting of it is dropped like any unknown UUID.
        #expect(engine.sighting(Self.sighting(BeaconIdentity(uuid: other, major: 9, minor: 9), device: "phone-2", at: 2)).unwatched)
        try engine.add(ConditionSpec(monitor: "lunch", identifier: "y", condition: .beacon(uuid: other, major: 9, minor: nil)), owner: "app", now: .at(3))
        #expect(engine.beaconUUIDs == 2, "named again under its old index")
        #expect(engine.sighting(Self.sighting(BeaconIdentity(uuid: other, major: 9, minor: 1), device: "phone-2", at: 4)).events.map(\.identifier) == ["y"])
    }

    @Test("conditions added and removed with 40,000 fresh UUIDs: retired ones are recycled, the table stays within its 32,768")
    func addRemoveCycles() throws {
        var settings = RegionSettings()
        settings.conditionLimit = 100
        let engine = RegionEngine(settings: settings)
        try engine.open(monitor: "lunch", owner: "app")
        // A device that heard one of them keeps that index referenced until its beacon expires.
        let heard = String(format: "00000000-0000-0000-0000-%012X", 0)
        for i in 0..<40_000 {
            let uuid = String(format: "00000000-0000-0000-0000-%012X", i)
            try engine.add(ConditionSpec(monitor: "lunch", identifier: "c", condition: .beacon(uuid: uuid, major: nil, minor: nil)), owner: "app", now: .at(0))
            if i == 0 { _ = engine.sighting(Self.sighting(BeaconIdentity(uuid: heard, major: 1, minor: 1), at: 0)) }
            if engine.beaconUUIDs > 32_768 { Issue.record("\(engine.beaconUUIDs) UUIDs held"); break }
        }
        #expect(engine.nearestBeacon(deviceId: "phone-1")?.beacon?.uuid == heard, "a referenced retired UUID keeps its text")
        // The last one added still matches.
        let last = String(format: "00000000-0000-0000-0000-%012X", 39_999)
        #expect(engine.sighting(Self.sighting(BeaconIdentity(uuid: last, major: 1, minor: 1), device: "phone-2", at: 1)).events.map(\.state) == [.satisfied])
    }

    @Test("32,768 UUIDs named at once: one more is refused with monitor.conditionLimitExceeded and nothing changes")
    func tableFull() throws {
        let engine = RegionEngine()
        for m in 0..<328 {
            engine.declareBuiltIn("m\(m)")
            for c in 0..<100 where m * 100 + c < 32_768 {
                let uuid = String(format: "00000000-0000-0000-0000-%012X", m * 100 + c)
                try engine.add(ConditionSpec(monitor: "m\(m)", identifier: "c\(c)", condition: .beacon(uuid: uuid, major: nil, minor: nil)), owner: nil, now: .at(0))
            }
        }
        #expect(engine.beaconUUIDs == 32_768)
        let refused = #expect(throws: ServiceError.self) {
            try engine.add(ConditionSpec(monitor: "m0", identifier: "c0", condition: .beacon(uuid: campusUUID, major: nil, minor: nil)), owner: nil, now: .at(0))
        }
        #expect(refused?.code == ErrorCode.conditionLimitExceeded.rawValue)
        #expect(engine.spec(monitor: "m0", identifier: "c0")?.condition == .beacon(uuid: "00000000-0000-0000-0000-000000000000", major: nil, minor: nil, exitTimeout: nil),
                "the condition it would have replaced is still there")
        // Replacing a condition with one naming a UUID already held needs no new index.
        try engine.add(ConditionSpec(monitor: "m0", identifier: "c0", condition: .beacon(uuid: "00000000-0000-0000-0000-000000000001", major: 5, minor: nil)),
                       owner: nil, now: .at(0))
        // The UUID c0 named is retired: recycled when the next new one needs its place.
        #expect(engine.beaconUUIDs == 32_768)
        try engine.add(ConditionSpec(monitor: "m0", identifier: "c0", condition: .beacon(uuid: campusUUID, major: nil, minor: nil)), owner: nil, now: .at(0))
        #expect(engine.sighting(Self.sighting(Self.macsSalad, at: 1)).events.map(\.identifier) == ["c0"])
    }
}
