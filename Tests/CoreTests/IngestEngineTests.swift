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

    @Test("a beacon's unreadable readings take the phone's estimate until the smoothing window holds a readable one")
    func phoneEstimateWithoutRSSI() throws {
        let engine = IngestEngine()
        let known = Self.known(.always)
        func sighting(rssi: Int, _ proximity: Proximity?, _ accuracy: Double?, at seconds: Double) throws -> Sighting {
            let report = IngestReport(deviceId: Self.device, sightings: [Self.ranging(rssi: rssi, proximity: proximity, accuracy: accuracy, at: .at(seconds))])
            return try #require(try engine.process(report, known: known, now: .at(seconds)).sightings.first)
        }
        // Nothing readable yet: the phone's values, with the RSSI still 0 (unknown) as CLBeacon has it.
        let first = try sighting(rssi: 0, .near, 1.25, at: 0)
        #expect((first.rssi, first.accuracy, first.proximity) == (0, 1.25, .near))
        // A readable RSSI decides from then on, even over the phone's own class.
        let readable = try sighting(rssi: -59, .far, 9, at: 1)
        #expect((readable.rssi, readable.accuracy, readable.proximity) == (-59, 1.0, .near))
        // An unreadable reading while the window still holds a readable one: the smoothed RSSI decides.
        let inWindow = try sighting(rssi: 0, .far, 9, at: 11)
        #expect((inWindow.rssi, inWindow.accuracy, inWindow.proximity) == (-59, 1.0, .near))
        // The readable sample has expired: the phone's values again.
        let expired = try sighting(rssi: 0, .far, 9, at: 11.001)
        #expect((expired.rssi, expired.accuracy, expired.proximity) == (0, 9, .far))
        // A phone without an estimate of its own: unknown, never a guess.
        let unknown = try sighting(rssi: 0, .unknown, -1, at: 12)
        #expect((unknown.accuracy, unknown.proximity) == (-1, .unknown))
    }

    @Test("the smoothing window is the engine's: readings count for exactly that long", arguments: [
        // (window, seconds between an RSSI of -50 and one of -70, the smoothed RSSI published with the second)
        (10.0, 10.0, -60),
        (10.0, 10.001, -70),
        (0.5, 0.5, -60),
        (0.5, 0.501, -70),
        (2.5, 2.0, -60),
        (2.5, 2.6, -70),
    ])
    func configurableWindow(window: Double, gap: Double, rssi: Int) throws {
        let engine = IngestEngine(smoothingWindow: window)
        #expect(engine.smoothingWindow == window)
        let known = Self.known(.always)
        _ = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging(rssi: -50)]), known: known, now: t0)
        let second = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging(rssi: -70, at: .at(gap))]), known: known, now: .at(gap))
        #expect(second.sightings.map(\.rssi) == [rssi])
    }

    @Test("idle readings expire after the engine's evidence window, bounding memory", arguments: [(10.0, 40.0, 40.0, 40.001), (0.5, 2.0, 2.0, 2.001), (10.0, 10.0, 10.0, 10.001)])
    func expireWithWindow(window: Double, evidence: Double, kept: Double, dropped: Double) throws {
        let engine = IngestEngine(smoothingWindow: window, evidenceWindow: evidence)
        _ = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging()]), known: Self.known(.always), now: t0)
        engine.expire(now: .at(kept))
        #expect(engine.trackedDevices == 1)
        engine.expire(now: .at(dropped))
        #expect(engine.trackedDevices == 0)
    }

    @Test("the default windows: 10 s of smoothing, 40 s of evidence")
    func defaultWindow() {
        #expect(IngestEngine().smoothingWindow == 10 && IngestEngine().evidenceWindow == 40)
    }

    @Test("a sighting carries the evidence: the mean of the beacon's readings over the evidence window, and how many; none without a readable reading")
    func sightingsCarryEvidence() throws {
        let engine = IngestEngine()
        let known = Self.known(.always)
        var last: [Sighting] = []
        for (i, rssi) in [-60, -70, 0, -65].enumerated() {
            last = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging(rssi: rssi, at: .at(Double(i)))]), known: known, now: .at(Double(i))).sightings
        }
        #expect(last.map(\.meanRssi) == [-65] && last.map(\.readings) == [3])
        let unreadable = try engine.process(IngestReport(deviceId: "phone-unread", sightings: [Self.ranging(rssi: 0)]), known: known, now: t0).sightings
        #expect(unreadable.map(\.meanRssi) == [nil] && unreadable.map(\.readings) == [nil])
    }
}
