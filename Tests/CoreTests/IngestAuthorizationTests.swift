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

    // MARK: The matrix with location state held

    @Test("each authorization × app state × location fix or sighting: accepted or the exact code, and whether the device's location state is dropped",
          arguments: AuthorizationPolicyTests.matrix, ["sighting", "fix"])
    func matrixWithStateHeld(row: (Authorization, Bool, String?, Bool), kind: String) throws {
        let (authorization, foreground, code, purge) = row
        let engine = IngestEngine()
        let always = Self.known(.always)
        // The device has been ranging under `always`, and so has another one.
        _ = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging(minor: 9, at: .at(-1))]), known: always, now: .at(-1))
        let other = DeviceStatus(deviceId: "phone-2", authorization: .always, foreground: true, precise: true,
                                 monitoringAvailable: true, rangingAvailable: true, changedAt: .at(-3600))
        _ = try engine.process(IngestReport(deviceId: "phone-2", sightings: [Self.ranging(minor: 9, at: .at(-1))]), known: other, now: .at(-1))
        #expect(engine.trackedBeacons(of: Self.device) == 1)

        let outcome = try engine.process(IngestReport(deviceId: Self.device, status: Self.status(authorization, foreground: foreground),
                                                      sightings: kind == "sighting" ? [Self.ranging()] : nil,
                                                      fixes: kind == "fix" ? [Self.fix()] : nil),
                                         known: always, now: t0)

        let label = "\(authorization) \(foreground ? "foreground" : "background") \(kind)"
        #expect(outcome.result.rejections.map { "\($0.kind) \($0.code)" } == (code.map { ["\(kind) \($0)"] } ?? []), "\(label)")
        #expect(outcome.result.accepted == (code == nil ? 2 : 1), "\(label): the status and, when allowed, the data")
        #expect(outcome.sightings.count + outcome.fixes.count == (code == nil ? 1 : 0), "\(label)")
        #expect(outcome.purge == purge, "\(label)")
        // A purge reaches region-monitor as the device.status the shell publishes for the change.
        let unchanged = authorization == .always && foreground
        #expect(outcome.changedStatus?.authorization == (unchanged ? nil : authorization), "\(label)")
        // Every piece of location state beacon-ingest holds for the device is gone on a purge, and only for that device.
        let held = purge ? 0 : 1 + (kind == "sighting" && code == nil ? 1 : 0)
        #expect(engine.trackedBeacons(of: Self.device) == held, "\(label)")
        #expect(engine.trackedBeacons(of: "phone-2") == 1, "\(label)")
    }

    @Test("status and data in one report: the data is judged by the new status, for every stored state × every new one",
          arguments: AuthorizationPolicyTests.matrix, AuthorizationPolicyTests.matrix)
    func judgedByNewStatus(old: (Authorization, Bool, String?, Bool), new: (Authorization, Bool, String?, Bool)) throws {
        let (oldAuthorization, oldForeground, _, _) = old
        let (authorization, foreground, code, purge) = new
        let engine = IngestEngine()
        let known = Self.known(oldAuthorization, foreground: oldForeground)
        _ = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging(minor: 9, at: .at(-1))]), known: Self.known(.always), now: .at(-1))

        let outcome = try engine.process(IngestReport(deviceId: Self.device, status: Self.status(authorization, foreground: foreground),
                                                      sightings: [Self.ranging()], fixes: [Self.fix()]),
                                         known: known, now: t0)

        let label = "\(oldAuthorization)/\(oldForeground) → \(authorization)/\(foreground)"
        #expect(outcome.result.rejections.map(\.code) == (code.map { [$0, $0] } ?? []), "\(label)")
        #expect(outcome.sightings.count == (code == nil ? 1 : 0), "\(label)")
        #expect(outcome.fixes.count == (code == nil ? 1 : 0), "\(label)")
        let same = oldAuthorization == authorization && oldForeground == foreground
        #expect((outcome.changedStatus == nil) == same, "\(label)")
        // Dropped when the device moves into a state that requires it (already dropped when it was there before).
        #expect(outcome.purge == (purge && !same), "\(label)")
        if outcome.purge { #expect(engine.trackedBeacons(of: Self.device) == 0, "\(label)") }
    }

    @Test("allowOnce in the foreground, then the background, then whenInUse in the background, then always")
    func oneTimeGrantSequence() throws {
        let engine = IngestEngine()
        var known: DeviceStatus?
        /// Sends a status with one sighting, as the phone would, and carries the stored status on.
        func step(_ authorization: Authorization, foreground: Bool, rssi: Int, at seconds: Double) throws -> IngestOutcome {
            let outcome = try engine.process(IngestReport(deviceId: Self.device, status: Self.status(authorization, foreground: foreground),
                                                          sightings: [Self.ranging(rssi: rssi, at: .at(seconds))]),
                                             known: known, now: .at(seconds))
            known = outcome.changedStatus ?? known
            return outcome
        }

        // The Location Button tapped: a one-time grant, the app in front.
        let granted = try step(.allowOnce, foreground: true, rssi: -90, at: 0)
        #expect(granted.result.rejections.isEmpty)
        #expect(granted.sightings.map(\.rssi) == [-90])
        #expect(granted.purge == false)
        #expect(engine.trackedBeacons(of: Self.device) == 1)

        // The app goes to the background: iOS ends the grant; everything held is dropped.
        let expired = try step(.allowOnce, foreground: false, rssi: -90, at: 1)
        #expect(expired.result.rejections.map(\.code) == ["location.oneTimeGrantExpired"])
        #expect(expired.purge)
        #expect(expired.changedStatus?.authorization == .allowOnce && expired.changedStatus?.foreground == false)
        #expect(engine.trackedBeacons(of: Self.device) == 0)

        // The user then grants whenInUse, the app still in the background: refused, but nothing to drop.
        let whenInUse = try step(.whenInUse, foreground: false, rssi: -90, at: 2)
        #expect(whenInUse.result.rejections.map(\.code) == ["location.notInForeground"])
        #expect(whenInUse.purge == false)
        #expect(whenInUse.changedStatus?.authorization == .whenInUse)

        // Then always: accepted in the background, and nothing from before the purge is averaged in.
        let always = try step(.always, foreground: false, rssi: -60, at: 3)
        #expect(always.result.rejections.isEmpty)
        #expect(always.result.accepted == 2)
        #expect(always.purge == false)
        #expect(always.sightings.map(\.rssi) == [-60])
        #expect(engine.trackedBeacons(of: Self.device) == 1)
    }

    @Test("whenInUse in the background keeps what is held: back in the foreground, the average goes on")
    func whenInUseBackgroundThenForeground() throws {
        let engine = IngestEngine()
        let foreground = Self.known(.whenInUse, foreground: true)
        _ = try engine.process(IngestReport(deviceId: Self.device, sightings: [Self.ranging(rssi: -70)]), known: foreground, now: t0)
        let background = try engine.process(IngestReport(deviceId: Self.device, status: Self.status(.whenInUse, foreground: false)),
                                            known: foreground, now: .at(1))
        #expect(background.purge == false)
        #expect(engine.trackedBeacons(of: Self.device) == 1)
        let back = try engine.process(IngestReport(deviceId: Self.device, status: Self.status(.whenInUse, foreground: true),
                                                   sightings: [Self.ranging(rssi: -60, at: .at(2))]),
                                      known: background.changedStatus, now: .at(2))
        #expect(back.sightings.map(\.rssi) == [-65])
    }
}
