@testable import BeaconIngestServer
import Foundation
import Messages
import ServiceRuntime
import TestSupport
import ZeroMQ

/// beacon-ingest's shell on a real SQLite file in a temporary folder, its clock in the test's
/// hand. Its sockets bind in-process endpoints nobody else uses; requests are calls. The test
/// holds region-monitor's end of the fix channel (`fixInbox`).
final class IngestHarness {
    /// Monday 23 November 2026, 20:00 UTC.
    static let t0 = Timestamp(milliseconds: 1_795_464_000_000)
    static let uuid = "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"

    let clock: ManualClock
    let folder: URL
    let arguments: [String]
    private(set) var host: ServiceHost
    private(set) var service: IngestService
    private(set) var fixInbox: Socket

    init(arguments: [String] = []) throws {
        clock = ManualClock(Self.t0)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-server-\(UUID().uuidString.prefix(8))")
        self.arguments = arguments
        (host, service, fixInbox) = try Self.open(folder: folder, clock: clock, arguments: arguments)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    private static func open(folder: URL, clock: ManualClock, arguments: [String]) throws -> (ServiceHost, IngestService, Socket) {
        let tag = UUID().uuidString.prefix(8)
        let config = try Configuration(program: "beacon-ingest", specs: IngestSettings.specs,
                                       arguments: ["--listen", "inproc://ingest-\(tag)", "--bus-pub", "inproc://bus-pub-\(tag)",
                                                   "--bus-sub", "inproc://bus-sub-\(tag)", "--data-dir", folder.path, "--log-level", "error",
                                                   "--fix-endpoints", "inproc://fixes-\(tag)"] + arguments,
                                       environment: [:])
        let host = try ServiceHost(options: IngestSettings.common, config: config, clock: clock)
        let inbox = try Socket(host.context, .pull)
        try inbox.bind("inproc://fixes-\(tag)")
        let service = IngestService(host: host, settings: try IngestSettings(config: config))
        try service.start()
        return (host, service, inbox)
    }

    /// The service started again on the same file (as after a crash), at the clock's time.
    func restart() throws {
        host.db.close()
        (host, service, fixInbox) = try Self.open(folder: folder, clock: clock, arguments: arguments)
    }

    static func status(_ authorization: Authorization, foreground: Bool = true) -> DeviceStatusReport {
        DeviceStatusReport(authorization: authorization, foreground: foreground)
    }

    /// One ranging of the campus beacon 1/2 taken now.
    func ranging(rssi: Int = -65) -> RangingReport {
        RangingReport(uuid: Self.uuid, major: 1, minor: 2, rssi: rssi, measuredPower: -59, timestamp: clock.now())
    }

    /// One precise fix taken now.
    func fix(latitude: Double = 37.3349) -> FixReport {
        FixReport(latitude: latitude, longitude: -122.009, horizontalAccuracy: 10, precise: true, timestamp: clock.now())
    }

    /// An `ingest.report` as a phone sends it.
    func report(_ deviceId: String, status: DeviceStatusReport? = nil, sightings: [RangingReport]? = nil, fixes: [FixReport]? = nil) throws -> IngestResult {
        try service.ingest(IngestReport(deviceId: deviceId, status: status, sightings: sightings, fixes: fixes))
    }

    /// The next fix region-monitor would receive, nil when none comes within a second.
    func nextFix() throws -> LocationFix? {
        guard let frames = try fixInbox.receiveMultipart(timeoutMilliseconds: 1_000), frames.count == 2 else { return nil }
        guard case .locationFix(let fix) = try Wire.decodeEnvelope(frames[1]).body else { return nil }
        return fix
    }

    /// The `device.status` events in the outbox, oldest first.
    func statusEvents() throws -> [DeviceStatus] {
        try host.db.query("SELECT envelope FROM outbox WHERE stream = 'device' ORDER BY seq").compactMap { row in
            guard case .deviceStatus(let status) = try Wire.decodeEnvelope(row.data("envelope")).body else { return nil }
            return status
        }
    }

    func health() throws -> [String: String] {
        let reply = host.requests.router.handle(Data(#"{"op":"health","id":"h1","body":{}}"#.utf8))
        return try requireValue(Wire.decodeReply(reply, body: HealthStatus.self).body).details
    }
}
