import BeaconIngestCore
import Messages
import Testing

/// Core Location's authorization as beacon-ingest enforces it: which data a device may send in
/// each state, and when every piece of its location state is dropped.
@Suite("Beacon ingest: authorization")
struct IngestAuthorizationTests: IngestFixtures {
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

    @Test("an approximate-only grant never yields a precise fix", arguments: [
        (true, true, true), (true, false, false), (false, true, false), (false, false, false),
    ])
    func approximateOnly(grantPrecise: Bool, fixPrecise: Bool, expected: Bool) throws {
        let report = IngestReport(deviceId: Self.device, status: Self.status(.always, precise: grantPrecise), fixes: [Self.fix(precise: fixPrecise)])
        let outcome = try IngestEngine().process(report, known: nil, now: t0)
        #expect(outcome.fixes.map(\.precise) == [expected])
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
}
