import BeaconIngestCore
import Messages
import Testing

@Suite("Beacon ingest: sightings and fixes published")
struct IngestEngineTests: IngestFixtures {
    @Test("a fix is passed on with its fields and the phone's time")
    func fixPassedOn() throws {
        let report = IngestReport(deviceId: Self.device, fixes: [Self.fix(latitude: 37.33526, longitude: -122.009, accuracy: 12.5, at: .at(-2))])
        let outcome = try IngestEngine().process(report, known: Self.known(.always), now: t0)
        #expect(outcome.fixes == [LocationFix(deviceId: Self.device, latitude: 37.33526, longitude: -122.009, horizontalAccuracy: 12.5,
                                              precise: true, observedAt: .at(-2))])
    }

    @Test("the beacon UUID is canonicalised to upper case, major and minor kept apart")
    func uuidCanonical() throws {
        let report = IngestReport(deviceId: Self.device, sightings: [Self.ranging(uuid: campusUUID.lowercased(), major: 1, minor: 2)])
        let outcome = try IngestEngine().process(report, known: Self.known(.always), now: t0)
        let sighting = try #require(outcome.sightings.first)
        #expect(sighting.beacon == BeaconIdentity(uuid: campusUUID, major: 1, minor: 2))
        #expect(sighting.deviceId == Self.device)
        #expect(sighting.observedAt == t0)
    }

    @Test("a sighting carries the smoothed RSSI, the distance estimate and the proximity class")
    func sightingEstimate() throws {
        let engine = IngestEngine()
        let atOneMetre = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging(rssi: -59, measuredPower: -59)]),
                                            known: Self.known(.always), now: t0)
        let sighting = try #require(atOneMetre.sightings.first)
        #expect(sighting.rssi == -59 && sighting.measuredPower == -59)
        #expect(sighting.accuracy == 1.0)
        #expect(sighting.proximity == .near)

        // An unreadable first reading gives no distance: unknown, never a guess.
        let unreadable = try IngestEngine().process(IngestReport(deviceId: Self.device, sightings: [Self.ranging(rssi: 0)]),
                                                    known: Self.known(.always), now: t0)
        #expect(unreadable.sightings.map(\.proximity) == [.unknown])
        #expect(unreadable.sightings.map(\.accuracy) == [-1])
    }

    @Test("smoothing is kept per device and per beacon")
    func smoothingPerDeviceAndBeacon() throws {
        let engine = IngestEngine()
        let known = Self.known(.always)
        _ = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging(minor: 1, rssi: -90)]), known: known, now: t0)
        _ = try engine.process(IngestReport(deviceId: "phone-2", sightings: [Self.ranging(minor: 2, rssi: -90)]),
                               known: DeviceStatus(deviceId: "phone-2", authorization: .always, foreground: true, precise: true,
                                                   monitoringAvailable: true, rangingAvailable: true, changedAt: t0), now: t0)
        let outcome = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging(minor: 2, rssi: -60, at: .at(1))]),
                                         known: known, now: .at(1))
        #expect(outcome.sightings.map(\.rssi) == [-60])
        #expect(engine.trackedDevices == 2)
    }

    @Test("idle smoothing state expires after the window, bounding memory")
    func expire() throws {
        let engine = IngestEngine()
        _ = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging()]), known: Self.known(.always), now: t0)
        engine.expire(now: .at(10))
        #expect(engine.trackedDevices == 1)
        engine.expire(now: .at(10.001))
        #expect(engine.trackedDevices == 0)
    }
}
