import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// region-monitor killed with SIGKILL in the middle of a walk and started again on its file:
/// beacon exits fire when they are due (one exit timeout after each phone's last sighting), not
/// one timeout after the restart, a phone that stayed gets no exit, and a phone back after its
/// exit fell due while the service was down gets the exit and then a new arrival.
@Suite(.serialized)
struct RegionRestartExitTests {
    static let exitSeconds = 8.0

    final class Walk {
        let platform: Platform
        let ingest: RequestClient
        let watcher: BusWatcher

        init(platform: Platform, context: Context) throws {
            self.platform = platform
            ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest"), timeoutMilliseconds: 5_000)
            watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["region.event."], probe: platform.busPub)
        }

        /// Sightings of a Caffè Macs beacon for `phones`, now; returns their time.
        @discardableResult
        func sight(_ phones: [String]) throws -> Timestamp {
            let now = Timestamp(Date())
            let reports = phones.map {
                IngestReport(deviceId: $0, sightings: [RangingReport(uuid: ScenarioTests.uuid, major: 1, minor: 1, rssi: -58, measuredPower: -59, timestamp: now)])
            }
            _ = try ingest.call(Op.ingestBatch, IngestBatch(reports: reports), as: IngestBatchResult.self)
            return now
        }

        /// `phones` sighted every 0.4 s for `seconds`; the time of the last round.
        @discardableResult
        func keepSighting(_ phones: [String], for seconds: Double) throws -> Timestamp {
            let end = Date().addingTimeInterval(seconds)
            var last = try sight(phones)
            while Date() < end {
                usleep(400_000)
                last = try sight(phones)
            }
            return last
        }

        /// Caffè Macs events of a phone seen so far, each once (a kill -9 may make the outbox send
        /// again what it had sent just before dying).
        func events(_ phone: String) throws -> [RegionEvent] {
            try watcher.pump()
            var seen = Set<String>()
            return watcher.all("region.event.campus.").compactMap { message -> RegionEvent? in
                guard seen.insert("\(message.envelope.source)/\(message.envelope.stream)/\(message.envelope.seq)").inserted,
                      case .region(let event) = message.envelope.body, event.deviceId == phone, event.identifier == "caffe-macs"
                else { return nil }
                return event
            }
        }

        func restartRegionMonitor() throws {
            platform.kill9("region-monitor")
            try platform.start("region-monitor")
            ingest.reset()
            try platform.waitHealthy("region-monitor")
        }

        func close() {
            ingest.close()
            watcher.close()
        }
    }

    @Test("kill -9 mid-walk: the phone that left exits one timeout after its last sighting, the one that stayed never exits, the one back late exits then arrives")
    func exitsOnTimeAfterKill9() throws {
        let platform = try Platform()
        defer { platform.stop() }
        platform.extraArguments["region-monitor"] = ["--beacon-exit-seconds", "\(Self.exitSeconds)"]
        try platform.start(busAnd: ["beacon-ingest", "region-monitor"])
        let context = try Context()
        let walk = try Walk(platform: platform, context: context)
        defer { walk.close() }
        let (stays, leaves, back) = ("phone-stays", "phone-leaves", "phone-back")
        _ = try walk.ingest.call(Op.ingestBatch, IngestBatch(reports: [stays, leaves, back].map {
            IngestReport(deviceId: $0, status: DeviceStatusReport(authorization: .always, foreground: false))
        }), as: IngestBatchResult.self)

        // Phase 1: both at Caffè Macs for a second, then one walks away; the service dies 4 s
        // later (after the save of its last sighting, which comes within 2 s) and comes straight back.
        let leftAt = try walk.keepSighting([stays, leaves], for: 1)
        try walk.keepSighting([stays], for: 4)
        try walk.restartRegionMonitor()
        let restartedAt = Timestamp(Date())
        let due = leftAt.adding(seconds: Self.exitSeconds)
        try walk.keepSighting([stays], for: max(0, Double(due.milliseconds - Timestamp(Date()).milliseconds) / 1000) + 2)
        let exit = try eventually("the exit of the phone that left", timeout: 5) { try walk.events(leaves).last { $0.state == .unsatisfied } }
        #expect(abs(exit.date.milliseconds - due.milliseconds) <= 1_000,
                "due at \(due.rfc3339), fired \(exit.date.rfc3339); one timeout after the restart would be \(restartedAt.adding(seconds: Self.exitSeconds).rfc3339)")
        #expect(try walk.events(leaves).map(\.state) == [.satisfied, .unsatisfied])
        #expect(try walk.events(stays).map(\.state) == [.satisfied], "the phone that stayed never exits")

        // Phase 2: a phone seen once; the service dies, stays down past its exit, and hears it
        // again after the restart: it exits (dated when due), then arrives again.
        let seenAt = try walk.sight([back])
        _ = try eventually("the arrival of the phone that comes back") { try walk.events(back).first { $0.state == .satisfied } }
        platform.kill9("region-monitor")
        // The exit timeout must really pass while the service is down (what this phase tests), so
        // this waits for the clock, not for something to happen: a second past the exit's due time.
        Thread.sleep(until: seenAt.date.addingTimeInterval(Self.exitSeconds + 1))
        try platform.start("region-monitor")
        walk.ingest.reset()
        try platform.waitHealthy("region-monitor")
        let backAt = try walk.sight([back])
        let events = try eventually("the exit and the new arrival", timeout: 5) { () -> [RegionEvent]? in
            let events = try walk.events(back)
            return events.count >= 3 ? events : nil
        }
        #expect(events.map(\.state) == [.satisfied, .unsatisfied, .satisfied])
        let backDue = seenAt.adding(seconds: Self.exitSeconds)
        #expect(abs(events[1].date.milliseconds - backDue.milliseconds) <= 1_000, "exit dated \(events[1].date.rfc3339), due \(backDue.rfc3339)")
        #expect(events[2].date.milliseconds >= backAt.milliseconds - 1_000)
    }
}
