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

    @Test("a device's beacons are smoothed apart however many it hears, past the few held in a list and back, and expire one by one", arguments: [3, 8, 9, 30])
    func manyBeaconsPerDevice(beacons: Int) throws {
        let engine = IngestEngine()
        let known = Self.known(.always)
        // Two UUIDs with the same majors and minors: different beacons.
        let other = "F7826DA6-4FA2-4E98-8024-BC5B71E0893E"
        func identity(_ b: Int) -> (uuid: String, minor: Int) { (b % 2 == 0 ? campusUUID : other, b / 2) }
        var reference: [Int: RSSISmoother] = [:]
        func expected(_ b: Int, _ rssi: Int, _ at: Timestamp) -> Int {
            Int((reference[b, default: RSSISmoother()].add(rssi: rssi, at: at) ?? 0).rounded())
        }
        for round in 0..<4 {
            let at = Timestamp.at(Double(round))
            // Every beacon each round, its own level, in a different order each round.
            let order = (0..<beacons).map { ($0 * (round + 1) * 7) % beacons }
            let heard = Array(Set(order)).sorted().count == beacons ? order : Array(0..<beacons)
            let report = IngestReport(deviceId: Self.device, sightings: heard.map { b in
                Self.ranging(uuid: identity(b).uuid, major: 1, minor: identity(b).minor, rssi: -40 - b - round * 3, at: at)
            })
            let outcome = try engine.process(report, known: known, now: at)
            #expect(outcome.sightings.map(\.rssi) == heard.map { expected($0, -40 - $0 - round * 3, at) }, "round \(round)")
            #expect(outcome.sightings.map(\.beacon) == heard.map { BeaconIdentity(uuid: identity($0).uuid, major: 1, minor: identity($0).minor) })
        }
        #expect(engine.trackedBeacons(of: Self.device) == beacons)
        // Only the first two heard again later: the rest expire, and those two keep their readings.
        for b in 0..<min(2, beacons) {
            let at = Timestamp.at(30)
            let sighting = try #require(try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging(uuid: identity(b).uuid, major: 1,
                                                                                                                          minor: identity(b).minor, rssi: -90, at: at)]),
                                                           known: known, now: at).sightings.first)
            #expect(sighting.readings == 5, "beacon \(b): its four earlier readings and this one")
            _ = expected(b, -90, at)
        }
        engine.expire(now: .at(45))
        #expect(engine.trackedBeacons(of: Self.device) == min(2, beacons))
        let at = Timestamp.at(46)
        let again = try engine.process(IngestReport(deviceId: Self.device, sightings: (0..<beacons).map { b in
            Self.ranging(uuid: identity(b).uuid, major: 1, minor: identity(b).minor, rssi: -70, at: at)
        }), known: known, now: at)
        #expect(again.sightings.map(\.readings) == (0..<beacons).map { $0 < 2 ? 2 : 1 })
        #expect(engine.trackedBeacons(of: Self.device) == beacons)
    }

    @Test("each sighting's UUID is judged on its own, however the ones before it went (the last one's verdict is kept)")
    func uuidVerdictPerSighting() throws {
        let other = "F7826DA6-4FA2-4E98-8024-BC5B71E0893E"
        let uuids = [campusUUID, "nope", campusUUID.lowercased(), campusUUID, "nope", "", other.lowercased(), other, campusUUID + " "]
        let engine = IngestEngine()
        for _ in 0..<2 {
            let outcome = try engine.process(IngestReport(deviceId: Self.device, sightings: uuids.map { Self.ranging(uuid: $0) }), known: Self.known(.always), now: t0)
            #expect(outcome.result.rejections.map(\.index) == [1, 4, 5, 8])
            #expect(outcome.result.rejections.allSatisfy { $0.code == "request.invalidField" && $0.message.contains("is not a UUID") })
            #expect(outcome.sightings.map(\.beacon.uuid) == [campusUUID, campusUUID, campusUUID, other, other])
        }
    }

    @Test("a report whose sightings are all refused leaves no smoothing state for its device")
    func refusedLeaveNothing() throws {
        let engine = IngestEngine()
        _ = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging(rssi: 5), Self.ranging(uuid: "nope")]), known: Self.known(.always), now: t0)
        _ = try engine.process(IngestReport(deviceId: "phone-2", sightings: [Self.ranging()]), known: nil, now: t0)
        _ = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging()]), known: Self.known(.always, ranging: false), now: t0)
        #expect(engine.trackedDevices == 0)
        let refused = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging(rssi: 5)]), known: Self.known(.whenInUse, foreground: false), now: t0)
        #expect(refused.result.rejections.map(\.code) == ["request.invalidField"], "a field's error is named before the device's refusal")
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
