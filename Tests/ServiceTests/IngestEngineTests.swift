import BeaconIngestCore
import Messages
import Testing

@Suite("Beacon ingest: authorization, validation, smoothing")
struct IngestEngineTests {
    static let device = "phone-1"

    static func status(_ authorization: Authorization, foreground: Bool = true, precise: Bool = true, ranging: Bool = true) -> DeviceStatusReport {
        DeviceStatusReport(authorization: authorization, foreground: foreground, precise: precise, monitoringAvailable: true, rangingAvailable: ranging)
    }

    static func known(_ authorization: Authorization, foreground: Bool = true, precise: Bool = true, ranging: Bool = true) -> DeviceStatus {
        DeviceStatus(deviceId: device, authorization: authorization, foreground: foreground, precise: precise,
                     monitoringAvailable: true, rangingAvailable: ranging, changedAt: .at(-3600))
    }

    static func ranging(uuid: String = campusUUID, major: Int = 1, minor: Int = 2, rssi: Int = -65, measuredPower: Int = -59,
                        at time: Timestamp = t0) -> RangingReport {
        RangingReport(uuid: uuid, major: major, minor: minor, rssi: rssi, measuredPower: measuredPower, timestamp: time)
    }

    static func fix(latitude: Double = 37.3349, longitude: Double = -122.009, accuracy: Double = 10, precise: Bool = true,
                    at time: Timestamp = t0) -> FixReport {
        FixReport(latitude: latitude, longitude: longitude, horizontalAccuracy: accuracy, precise: precise, timestamp: time)
    }

    // MARK: Authorization

    @Test("a new device's first report: each authorization × app state × kind of data", arguments: AuthorizationPolicyTests.matrix, ["sighting", "fix"])
    func authorizationMatrixOnFirstReport(row: (Authorization, Bool, String?, Bool), kind: String) throws {
        let (authorization, foreground, code, purge) = row
        let report = IngestReport(deviceId: Self.device, status: Self.status(authorization, foreground: foreground),
                                  sightings: kind == "sighting" ? [Self.ranging()] : nil,
                                  fixes: kind == "fix" ? [Self.fix()] : nil)
        let outcome = try IngestEngine().process(report, known: nil, now: t0)

        // The status itself is always taken; the data only when the authorization allows it.
        #expect(outcome.result.accepted == (code == nil ? 2 : 1))
        #expect(outcome.result.rejected == (code == nil ? 0 : 1))
        #expect(outcome.result.rejections.map(\.code) == (code.map { [$0] } ?? []))
        #expect(outcome.result.rejections.map(\.kind) == (code == nil ? [] : [kind]))
        #expect(outcome.sightings.count == (code == nil && kind == "sighting" ? 1 : 0))
        #expect(outcome.fixes.count == (code == nil && kind == "fix" ? 1 : 0))
        let changed = try #require(outcome.changedStatus)
        #expect(changed.authorization == authorization && changed.foreground == foreground && changed.changedAt == t0)
        #expect(outcome.purge == purge)
    }

    @Test("a known device reporting data only: each authorization × app state × kind of data", arguments: AuthorizationPolicyTests.matrix, ["sighting", "fix"])
    func authorizationMatrixForKnownDevice(row: (Authorization, Bool, String?, Bool), kind: String) throws {
        let (authorization, foreground, code, _) = row
        let report = IngestReport(deviceId: Self.device,
                                  sightings: kind == "sighting" ? [Self.ranging(), Self.ranging(minor: 3)] : nil,
                                  fixes: kind == "fix" ? [Self.fix(), Self.fix(latitude: 37.3350)] : nil)
        let outcome = try IngestEngine().process(report, known: Self.known(authorization, foreground: foreground), now: t0)

        #expect(outcome.result.accepted == (code == nil ? 2 : 0))
        #expect(outcome.result.rejections.map(\.code) == (code.map { [$0, $0] } ?? []))
        #expect(outcome.result.rejections.map(\.index) == (code == nil ? [] : [0, 1]))
        #expect(outcome.sightings.count + outcome.fixes.count == (code == nil ? 2 : 0))
        #expect(outcome.changedStatus == nil)
        #expect(outcome.purge == false)
    }

    @Test("a device that never reported its status is refused with location.unknownDevice")
    func unknownDevice() throws {
        let report = IngestReport(deviceId: Self.device, sightings: [Self.ranging()], fixes: [Self.fix()])
        let outcome = try IngestEngine().process(report, known: nil, now: t0)
        #expect(outcome.result.accepted == 0)
        #expect(outcome.result.rejections.map(\.code) == ["location.unknownDevice", "location.unknownDevice"])
        #expect(outcome.result.rejections.map(\.kind) == ["sighting", "fix"])
        #expect(outcome.sightings.isEmpty && outcome.fixes.isEmpty)
        #expect(outcome.changedStatus == nil)
    }

    @Test("the status is reported as changed only when it differs from the stored one")
    func changedStatusOnlyOnChange() throws {
        let engine = IngestEngine()
        let known = Self.known(.always, foreground: true)

        let same = try engine.process(IngestReport(deviceId: Self.device, status: Self.status(.always, foreground: true)), known: known, now: t0)
        #expect(same.changedStatus == nil)
        #expect(same.purge == false)
        #expect(same.result.accepted == 1)

        let background = try engine.process(IngestReport(deviceId: Self.device, status: Self.status(.always, foreground: false)), known: known, now: t0)
        #expect(background.changedStatus == DeviceStatus(deviceId: Self.device, authorization: .always, foreground: false, precise: true,
                                                         monitoringAvailable: true, rangingAvailable: true, changedAt: t0))
        #expect(background.purge == false)

        let approximate = try engine.process(IngestReport(deviceId: Self.device, status: Self.status(.always, precise: false)), known: known, now: t0)
        #expect(approximate.changedStatus?.precise == false)

        let noRanging = try engine.process(IngestReport(deviceId: Self.device, status: Self.status(.always, ranging: false)), known: known, now: t0)
        #expect(noRanging.changedStatus?.rangingAvailable == false)
    }

    @Test("withdrawing authorization sets purge and drops the device's smoothing state", arguments: [
        (Authorization.denied, true), (.restricted, true), (.notDetermined, true), (.allowOnce, false),
    ])
    func withdrawalPurges(authorization: Authorization, foreground: Bool) throws {
        let engine = IngestEngine()
        let granted = Self.known(.always)
        let weak = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging(rssi: -90)]), known: granted, now: t0)
        #expect(weak.sightings.map(\.rssi) == [-90])
        #expect(engine.trackedDevices == 1)

        let withdrawn = try engine.process(IngestReport(deviceId: Self.device, status: Self.status(authorization, foreground: foreground)),
                                           known: granted, now: .at(1))
        #expect(withdrawn.purge)
        #expect(withdrawn.changedStatus?.authorization == authorization)
        #expect(engine.trackedDevices == 0)

        // Granted again: nothing from before the withdrawal is averaged in.
        let again = try engine.process(IngestReport(deviceId: Self.device, status: Self.status(.always), sightings: [Self.ranging(rssi: -60, at: .at(2))]),
                                       known: withdrawn.changedStatus, now: .at(2))
        #expect(again.purge == false)
        #expect(again.sightings.map(\.rssi) == [-60])
    }

    @Test("whenInUse going to the background refuses new data but keeps what is held")
    func whenInUseBackgroundKeepsState() throws {
        let engine = IngestEngine()
        _ = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging()]), known: Self.known(.whenInUse), now: t0)
        let outcome = try engine.process(IngestReport(deviceId: Self.device, status: Self.status(.whenInUse, foreground: false), sightings: [Self.ranging(at: .at(1))]),
                                         known: Self.known(.whenInUse), now: .at(1))
        #expect(outcome.purge == false)
        #expect(outcome.result.rejections.map(\.code) == ["location.notInForeground"])
        #expect(engine.trackedDevices == 1)
    }

    // MARK: Validation

    static let validSighting: (String, RangingReport, String?) = ("valid", ranging(), nil)

    @Test("each field of a ranging report is checked", arguments: [
        validSighting,
        ("lower-case uuid", ranging(uuid: campusUUID.lowercased()), nil),
        ("not a uuid", ranging(uuid: "not-a-uuid"), "request.invalidField"),
        ("uuid without dashes", ranging(uuid: campusUUID.replacingOccurrences(of: "-", with: "")), "request.invalidField"),
        ("uuid in braces", ranging(uuid: "{\(campusUUID)}"), "request.invalidField"),
        ("uuid with a non-hex digit", ranging(uuid: "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C3G"), "request.invalidField"),
        ("empty uuid", ranging(uuid: ""), "request.invalidField"),
        ("major 0", ranging(major: 0), nil),
        ("major 65535", ranging(major: 65535), nil),
        ("major -1", ranging(major: -1), "request.invalidField"),
        ("major 65536", ranging(major: 65536), "request.invalidField"),
        ("minor 0", ranging(minor: 0), nil),
        ("minor 65535", ranging(minor: 65535), nil),
        ("minor -1", ranging(minor: -1), "request.invalidField"),
        ("minor 65536", ranging(minor: 65536), "request.invalidField"),
        ("rssi -127", ranging(rssi: -127), nil),
        ("rssi 0 (unreadable)", ranging(rssi: 0), nil),
        ("rssi -128", ranging(rssi: -128), "request.invalidField"),
        ("rssi 1", ranging(rssi: 1), "request.invalidField"),
        ("measuredPower -127", ranging(measuredPower: -127), nil),
        ("measuredPower -1", ranging(measuredPower: -1), nil),
        ("measuredPower 0", ranging(measuredPower: 0), "request.invalidField"),
        ("measuredPower -128", ranging(measuredPower: -128), "request.invalidField"),
        ("60 s in the future", ranging(at: .at(60)), nil),
        ("61 s in the future", ranging(at: .at(61)), "request.invalidField"),
        ("a day in the future", ranging(at: .at(86_400)), "request.invalidField"),
        ("600 s old", ranging(at: .at(-600)), nil),
        ("601 s old", ranging(at: .at(-601)), "request.invalidField"),
    ] as [(String, RangingReport, String?)])
    func sightingFields(label: String, report: RangingReport, code: String?) throws {
        let outcome = try IngestEngine().process(IngestReport(deviceId: Self.device, sightings: [report]), known: Self.known(.always), now: t0)
        #expect(outcome.result.rejections.map(\.code) == (code.map { [$0] } ?? []), "\(label)")
        #expect(outcome.sightings.count == (code == nil ? 1 : 0), "\(label)")
        if let rejection = outcome.result.rejections.first { #expect(!rejection.message.isEmpty) }
    }

    @Test("each field of a location fix is checked", arguments: [
        ("valid", fix(), nil),
        ("latitude 90", fix(latitude: 90), nil),
        ("latitude -90", fix(latitude: -90), nil),
        ("latitude 90.0001", fix(latitude: 90.0001), "request.invalidField"),
        ("latitude -91", fix(latitude: -91), "request.invalidField"),
        ("latitude NaN", fix(latitude: .nan), "request.invalidField"),
        ("latitude infinite", fix(latitude: .infinity), "request.invalidField"),
        ("longitude 180", fix(longitude: 180), nil),
        ("longitude -180", fix(longitude: -180), nil),
        ("longitude 180.5", fix(longitude: 180.5), "request.invalidField"),
        ("longitude -181", fix(longitude: -181), "request.invalidField"),
        ("longitude NaN", fix(longitude: .nan), "request.invalidField"),
        ("accuracy 0", fix(accuracy: 0), nil),
        ("accuracy -1 (invalid fix)", fix(accuracy: -1), "request.invalidField"),
        ("accuracy NaN", fix(accuracy: .nan), "request.invalidField"),
        ("accuracy infinite", fix(accuracy: .infinity), "request.invalidField"),
        ("accuracy 100001 m", fix(accuracy: 100_001), "request.invalidField"),
        ("61 s in the future", fix(at: .at(61)), "request.invalidField"),
        ("601 s old", fix(at: .at(-601)), "request.invalidField"),
    ] as [(String, FixReport, String?)])
    func fixFields(label: String, report: FixReport, code: String?) throws {
        let outcome = try IngestEngine().process(IngestReport(deviceId: Self.device, fixes: [report]), known: Self.known(.always), now: t0)
        #expect(outcome.result.rejections.map(\.code) == (code.map { [$0] } ?? []), "\(label)")
        #expect(outcome.fixes.count == (code == nil ? 1 : 0), "\(label)")
    }

    @Test("a batch over the limits is refused whole with request.tooLarge", arguments: [
        (500, 0, nil), (501, 0, "request.tooLarge"), (0, 100, nil), (0, 101, "request.tooLarge"),
    ] as [(Int, Int, String?)])
    func batchLimits(sightings: Int, fixes: Int, code: String?) {
        let report = IngestReport(deviceId: Self.device, sightings: Array(repeating: Self.ranging(), count: sightings),
                                  fixes: Array(repeating: Self.fix(), count: fixes))
        let engine = IngestEngine()
        #expect(errorCode { () throws(ServiceError) in try engine.process(report, known: Self.known(.always), now: t0) } == code)
        if code != nil { #expect(engine.trackedDevices == 0) }
    }

    @Test("a bad device id makes the whole batch unusable", arguments: [
        ("", "request.invalidField"),
        ("has space", "request.invalidField"),
        ("slash/id", "request.invalidField"),
        ("grüße", "request.invalidField"),
        (String(repeating: "a", count: 65), "request.invalidField"),
        (String(repeating: "a", count: 64), nil),
        ("Phone_1-A", nil),
    ] as [(String, String?)])
    func deviceID(id: String, code: String?) {
        let report = IngestReport(deviceId: id, status: Self.status(.always))
        #expect(errorCode { () throws(ServiceError) in try IngestEngine().process(report, known: nil, now: t0) } == code)
    }

    @Test("a per-item rejection names its kind and index; the rest of the batch is taken")
    func rejectionsNameIndexAndKind() throws {
        let report = IngestReport(deviceId: Self.device, status: Self.status(.always),
                                  sightings: [Self.ranging(), Self.ranging(major: 70_000), Self.ranging(minor: 3)],
                                  fixes: [Self.fix(), Self.fix(latitude: 91), Self.fix(accuracy: -5)])
        let outcome = try IngestEngine().process(report, known: nil, now: t0)
        #expect(outcome.result.accepted == 4) // status, two sightings, one fix
        #expect(outcome.result.rejected == 3)
        #expect(outcome.result.rejections.map { "\($0.kind)[\($0.index)] \($0.code)" } == [
            "sighting[1] request.invalidField", "fix[1] request.invalidField", "fix[2] request.invalidField",
        ])
        #expect(outcome.result.rejections[0].message.contains("70000"))
        #expect(outcome.sightings.map(\.beacon.minor) == [2, 3])
        #expect(outcome.fixes.count == 1)
    }

    @Test("an approximate-only grant never yields a precise fix", arguments: [
        (true, true, true), (true, false, false), (false, true, false), (false, false, false),
    ])
    func approximateOnly(grantPrecise: Bool, fixPrecise: Bool, expected: Bool) throws {
        let report = IngestReport(deviceId: Self.device, status: Self.status(.always, precise: grantPrecise), fixes: [Self.fix(precise: fixPrecise)])
        let outcome = try IngestEngine().process(report, known: nil, now: t0)
        #expect(outcome.fixes.map(\.precise) == [expected])
    }

    @Test("a fix is passed on with its fields and the phone's time")
    func fixPassedOn() throws {
        let report = IngestReport(deviceId: Self.device, fixes: [Self.fix(latitude: 37.33526, longitude: -122.009, accuracy: 12.5, at: .at(-2))])
        let outcome = try IngestEngine().process(report, known: Self.known(.always), now: t0)
        #expect(outcome.fixes == [LocationFix(deviceId: Self.device, latitude: 37.33526, longitude: -122.009, horizontalAccuracy: 12.5,
                                              precise: true, observedAt: .at(-2))])
    }

    @Test("a device without ranging has its sightings refused with location.rangingUnavailable, its fixes taken")
    func rangingUnavailable() throws {
        let report = IngestReport(deviceId: Self.device, status: Self.status(.always, ranging: false), sightings: [Self.ranging()], fixes: [Self.fix()])
        let outcome = try IngestEngine().process(report, known: nil, now: t0)
        #expect(outcome.result.rejections.map(\.code) == ["location.rangingUnavailable"])
        #expect(outcome.result.rejections.map(\.kind) == ["sighting"])
        #expect(outcome.sightings.isEmpty)
        #expect(outcome.fixes.count == 1)
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
