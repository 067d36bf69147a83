import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// region-monitor and beacon-ingest as real processes: monitors managed through the socket and
/// kept across kill -9, App Clip location confirmation, coordinates kept off the bus, and a
/// stream of sightings surviving a kill -9 mid-stream.
@Suite("Location through the platform", .serialized)
struct LocationTests {
    static let uuid = "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"
    /// Caffè Macs, from deploy/campus.json.
    static let macs = (latitude: 37.3349, longitude: -122.009)

    static func report(_ ingest: RequestClient, _ device: String, status: DeviceStatusReport? = nil, sightings: [RangingReport] = [],
                       fixes: [FixReport] = []) throws -> IngestResult {
        try ingest.call(Op.ingestReport, IngestReport(deviceId: device, status: status, sightings: sightings.isEmpty ? nil : sightings,
                                                      fixes: fixes.isEmpty ? nil : fixes), as: IngestResult.self)
    }

    static func fix(north metres: Double, accuracy: Double = 8, precise: Bool = true, at time: Timestamp = Timestamp(Date())) -> FixReport {
        FixReport(latitude: macs.latitude + metres / 111_195, longitude: macs.longitude, horizontalAccuracy: accuracy, precise: precise, timestamp: time)
    }

    @Test("monitors through the socket: ownership, limits, typed errors, events, and all of it kept across kill -9")
    func monitorManagement() throws {
        let platform = try Platform()
        defer { platform.stop() }
        platform.extraArguments["region-monitor"] = ["--condition-limit", "2"]
        try platform.startAll()
        let context = try Context()
        let region = RequestClient(context: context, endpoint: platform.endpoint("region-monitor"))
        let ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest"))
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["region.event.reminders."], probe: platform.busPub)
        defer { region.close(); ingest.close(); watcher.close() }

        let opened = try region.call(Op.monitorOpen, MonitorOwnership(monitor: "reminders", owner: "notify"), as: MonitorInfo.self)
        #expect(opened == MonitorInfo(monitor: "reminders", owner: "notify", conditions: 0, conditionLimit: 2, builtIn: false))
        #expect(errorCode { _ = try region.call(Op.monitorOpen, MonitorOwnership(monitor: "reminders", owner: "someone"), as: MonitorInfo.self) } == "monitor.owned")
        #expect(errorCode { _ = try region.call(Op.monitorOpen, MonitorOwnership(monitor: "campus", owner: "notify"), as: MonitorInfo.self) } == "monitor.owned")

        let office = Condition.circle(latitude: Self.macs.latitude, longitude: Self.macs.longitude, radius: 60)
        let add = AddCondition(monitor: "reminders", owner: "notify", identifier: "arrive-macs", condition: office, deviceId: "phone-m", assuming: .unsatisfied)
        let added = try region.call(Op.monitorAdd, add, as: MonitorRecord.self)
        #expect(added.condition == office && added.deviceId == "phone-m" && added.assuming == .unsatisfied && added.lastEvent == nil)
        var other = add
        other.owner = "someone"
        #expect(errorCode { _ = try region.call(Op.monitorAdd, other, as: MonitorRecord.self) } == "monitor.notOwner")
        var bad = add
        bad.identifier = "bad-radius"
        bad.condition = .circle(latitude: 37, longitude: -122, radius: -5)
        #expect(errorCode { _ = try region.call(Op.monitorAdd, bad, as: MonitorRecord.self) } == "monitor.invalidCondition")
        var second = add
        second.identifier = "coffee-beacon"
        second.condition = .beacon(uuid: Self.uuid, major: 2, minor: nil)
        second.deviceId = nil
        second.assuming = nil
        _ = try region.call(Op.monitorAdd, second, as: MonitorRecord.self)
        var third = second
        third.identifier = "one-too-many"
        #expect(errorCode { _ = try region.call(Op.monitorAdd, third, as: MonitorRecord.self) } == "monitor.conditionLimitExceeded")
        #expect(errorCode { _ = try region.call(Op.monitorIdentifiers, MonitorQuery(monitor: "nope"), as: MonitorIdentifiers.self) } == "monitor.unknown")
        #expect(errorCode { _ = try region.call(Op.monitorRecord, RecordQuery(monitor: "reminders", identifier: "nope", deviceId: nil), as: MonitorRecord.self) } == "monitor.unknownCondition")
        let garbage = try region.send(raw: Data(#"{"op":"monitor.add","id":"x","body":{"monitor":"reminders"}}"#.utf8))
        #expect(String(decoding: garbage, as: UTF8.self).contains("\"ok\":false"))
        #expect(try region.call(Op.monitorIdentifiers, MonitorQuery(monitor: "reminders"), as: MonitorIdentifiers.self).identifiers == ["arrive-macs", "coffee-beacon"])

        // The phone walks in: one event for its own condition, on the monitor's topic.
        _ = try Self.report(ingest, "phone-m", status: DeviceStatusReport(authorization: .whenInUse, foreground: true))
        #expect(try Self.report(ingest, "phone-m", fixes: [Self.fix(north: 400)]).accepted == 1)
        #expect(try Self.report(ingest, "phone-m", fixes: [Self.fix(north: 5)]).accepted == 1)
        let entered = try watcher.waitFor("region.event.reminders.") { if case .region(let e) = $0.envelope.body { e.state == .satisfied } else { false } }
        guard case .region(let event) = entered.envelope.body else { return }
        #expect(event.identifier == "arrive-macs" && event.deviceId == "phone-m")
        #expect(watcher.all("region.event.reminders.").count == 1, "the fix 400 m away only confirmed the assumed unsatisfied: no event")

        // kill -9: the monitor, its owner, conditions and records are all still there.
        platform.kill9("region-monitor")
        try platform.start("region-monitor")
        region.reset()
        try platform.waitHealthy("region-monitor")
        let list = try region.call(Op.monitorList, Empty(), as: MonitorList.self)
        #expect(list.monitors.map(\.monitor) == ["campus", "reminders"])
        #expect(list.monitors.last == MonitorInfo(monitor: "reminders", owner: "notify", conditions: 2, conditionLimit: 2, builtIn: false))
        let record = try region.call(Op.monitorRecord, RecordQuery(monitor: "reminders", identifier: "arrive-macs", deviceId: nil), as: MonitorRecord.self)
        #expect(record.lastEvent?.state == .satisfied && record.lastEvent?.deviceId == "phone-m")
        #expect(errorCode { _ = try region.call(Op.monitorOpen, MonitorOwnership(monitor: "reminders", owner: "someone"), as: MonitorInfo.self) } == "monitor.owned")

        // Still inside after the restart: nothing re-announced. Then out, past the hysteresis: one exit.
        _ = try Self.report(ingest, "phone-m", fixes: [Self.fix(north: 10)])
        _ = try Self.report(ingest, "phone-m", fixes: [Self.fix(north: 300)])
        _ = try watcher.waitFor("region.event.reminders.") { if case .region(let e) = $0.envelope.body { e.state == .unsatisfied } else { false } }
        try watcher.pump(milliseconds: 300)
        // As every consumer does, drop copies the outbox re-sent after the kill (same source, stream and seq).
        var seen = Set<String>()
        let states = watcher.all("region.event.reminders.").compactMap { message -> ConditionState? in
            guard seen.insert("\(message.envelope.source)/\(message.envelope.stream)/\(message.envelope.seq)").inserted,
                  case .region(let e) = message.envelope.body else { return nil }
            return e.state
        }
        #expect(states == [.satisfied, .unsatisfied])

        let removed = try region.call(Op.monitorRemove, RemoveCondition(monitor: "reminders", owner: "notify", identifier: "arrive-macs"), as: RemovedCondition.self)
        #expect(removed.recordsRemoved == 1)
        _ = try region.call(Op.monitorClose, MonitorOwnership(monitor: "reminders", owner: "notify"), as: MonitorInfo.self)
        #expect(try region.call(Op.monitorOpen, MonitorOwnership(monitor: "reminders", owner: "someone"), as: MonitorInfo.self).owner == "someone")
    }

    @Test("App Clip location confirmation answers yes, no or disallowed; no bus message ever carries a coordinate")
    func confirmationAndPrivacy() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let region = RequestClient(context: context, endpoint: platform.endpoint("region-monitor"))
        let ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest"))
        let everything = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: [""], probe: platform.busPub)
        defer { region.close(); ingest.close(); everything.close() }
        let code = "https://appclip.example.com/macs?table=12"
        func confirm(_ device: String, cafe: String? = "caffe-macs", region circle: ConfirmRegion? = nil, at: Timestamp = Timestamp(Date())) throws -> LocationConfirmation {
            try region.call(Op.locationConfirm, ConfirmLocation(deviceId: device, code: code, acquiredAt: at, cafeId: cafe, region: circle), as: LocationConfirmation.self)
        }

        // A guest inside Caffè Macs scans the code; another is 2 km away.
        _ = try Self.report(ingest, "clip-in", status: DeviceStatusReport(authorization: .allowOnce, foreground: true))
        _ = try Self.report(ingest, "clip-out", status: DeviceStatusReport(authorization: .allowOnce, foreground: true))
        _ = try Self.report(ingest, "clip-approx", status: DeviceStatusReport(authorization: .allowOnce, foreground: true, precise: false))
        _ = try Self.report(ingest, "clip-in", fixes: [Self.fix(north: 15, accuracy: 10)])
        _ = try Self.report(ingest, "clip-out", fixes: [Self.fix(north: 2_000, accuracy: 10)])
        _ = try Self.report(ingest, "clip-approx", fixes: [Self.fix(north: 15, accuracy: 1_500, precise: false)])
        let yes = try eventually("the fix reaches region-monitor") { try confirm("clip-in").result == .yes ? true : nil }
        #expect(yes)
        // clip-out's fix was pushed after clip-in's and may still be on its way.
        let no = try eventually("clip-out's fix reaches region-monitor") { try confirm("clip-out").reason != .noFreshFix ? true : nil }
        #expect(no)
        #expect(try confirm("clip-out") == LocationConfirmation(deviceId: "clip-out", code: code, result: .no))
        #expect(try confirm("clip-approx").reason == .approximateOnly)
        #expect(try confirm("never-seen").reason == .noFreshFix)
        #expect(try confirm("clip-in", at: Timestamp(Date()).adding(seconds: -300)).reason == .noFreshFix)
        #expect(try confirm("clip-out", cafe: nil, region: ConfirmRegion(latitude: Self.macs.latitude + 2_000 / 111_195, longitude: Self.macs.longitude, radius: 100)).result == .yes)
        #expect(errorCode { _ = try confirm("clip-in", cafe: nil, region: ConfirmRegion(latitude: Self.macs.latitude, longitude: Self.macs.longitude, radius: 501)) } == "location.regionTooLarge")
        #expect(errorCode { _ = try confirm("clip-in", cafe: "atlantis") } == "order.unknownCafe")
        #expect(errorCode { _ = try confirm("clip-in", cafe: nil) } == "request.invalidField")

        // The nearest cafés by distance: ids only.
        let nearest = try region.call(Op.nearestGet, DeviceQuery(deviceId: "clip-in"), as: NearestAnswer.self)
        #expect(nearest.cafesByDistance.prefix(2) == ["caffe-macs", "macs-coffee"])

        // The App Clip goes to the background: its one-time grant ends, and so does every answer.
        _ = try Self.report(ingest, "clip-in", status: DeviceStatusReport(authorization: .allowOnce, foreground: false))
        _ = try everything.waitFor("region.purged.") { if case .purged(let p) = $0.envelope.body { p.deviceId == "clip-in" } else { false } }
        #expect(try confirm("clip-in").reason == .authorizationDenied)
        #expect(try region.call(Op.nearestGet, DeviceQuery(deviceId: "clip-in"), as: NearestAnswer.self).cafesByDistance.isEmpty)

        // Nothing on the bus carried a position: not the fixes, not a dead letter, not an event.
        try everything.pump(milliseconds: 200)
        #expect(!everything.messages.isEmpty)
        for message in everything.messages {
            let text = String(decoding: message.raw, as: UTF8.self)
            #expect(!text.contains("latitude") && !text.contains("longitude") && !text.contains("37.33") && !text.contains("-122.0"), "\(message.topic): \(text)")
            #expect(!message.topic.hasPrefix("location."))
        }
        #expect(everything.undecodable.isEmpty)
    }

    @Test("kill -9 mid-stream: for every device, each change announced once, none lost")
    func killMidStream() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest"))
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["region.event.campus."], probe: platform.busPub)
        defer { ingest.close(); watcher.close() }
        let devices = (0..<12).map { "stream-\($0)" }
        for device in devices { _ = try Self.report(ingest, device, status: DeviceStatusReport(authorization: .always, foreground: false)) }
        func sightAll() throws {
            for device in devices {
                _ = try Self.report(ingest, device, sightings: [RangingReport(uuid: Self.uuid, major: 1, minor: 1, rssi: -60, measuredPower: -59, timestamp: Timestamp(Date()))])
            }
        }
        // Sightings keep flowing while region-monitor dies and comes back.
        let deadline = Date().addingTimeInterval(3)
        var killed = false
        while Date() < deadline {
            try sightAll()
            if !killed, Date() > deadline.addingTimeInterval(-2) {
                platform.kill9("region-monitor")
                try platform.start("region-monitor")
                killed = true
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        try platform.waitHealthy("region-monitor")
        try sightAll()
        // Then silence: every device exits once the 5 s test exit timeout passes.
        func states() -> [String: [ConditionState]] {
            var seen = Set<String>()
            var result: [String: [ConditionState]] = [:]
            for message in watcher.all("region.event.campus.") {
                guard seen.insert("\(message.envelope.source)/\(message.envelope.stream)/\(message.envelope.seq)").inserted,
                      case .region(let e) = message.envelope.body, e.identifier == "caffe-macs"
                else { continue }
                result[e.deviceId, default: []].append(e.state)
            }
            return result
        }
        _ = try eventually("every device's exit", timeout: 30) {
            try watcher.pump()
            let s = states()
            return devices.allSatisfy { s[$0]?.last == .unsatisfied } ? true : nil
        }
        for (device, sequence) in states() {
            #expect(sequence.first == .satisfied, "\(device): \(sequence)")
            #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $0 != $1 }, "\(device) announced a state twice in a row: \(sequence)")
        }
    }
}
