import Campus
import Foundation
import Messages
@testable import RegionMonitorServer
import ServiceRuntime
import TestSupport
import ZeroMQ

/// region-monitor's server on a real SQLite file in a temporary folder, its clock in the test's
/// hand. Its sockets bind in-process endpoints nobody else uses. Bus messages are applied as the
/// subscription applies them (in a transaction), fixes are pushed into its fix channel's socket,
/// requests go through its router as the wire carries them, and what it announced is read back
/// with a `replay` request, as a consumer catching up would.
final class RegionHarness {
    /// Monday 23 November 2026, 12:00 in Cupertino (20:00 UTC).
    static let t0 = Timestamp(milliseconds: 1_795_464_000_000)
    /// Caffè Macs in the demo catalog: its beacon major and its center.
    static let macsMajor = 1
    static let macs = (latitude: 37.3349, longitude: -122.009)

    static var campusPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/campus.json").path
    }

    let clock: ManualClock
    let folder: URL
    let catalog: CampusCatalog
    private let arguments: [String]
    private(set) var host: ServiceHost
    private(set) var service: RegionService
    private var fixEndpoint: String
    private var seq: UInt64 = 0

    /// A service on a new folder, or on `folder` when a test prepared one (a database from before).
    init(start: Timestamp = RegionHarness.t0, arguments: [String] = [], folder: URL? = nil) throws {
        clock = ManualClock(start)
        self.folder = folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("region-server-\(UUID().uuidString.prefix(8))")
        catalog = try CampusCatalog.load(path: Self.campusPath)
        self.arguments = arguments
        (host, service, fixEndpoint) = try Self.open(folder: self.folder, clock: clock, catalog: catalog, arguments: arguments)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    private static func open(folder: URL, clock: ManualClock, catalog: CampusCatalog, arguments: [String]) throws -> (ServiceHost, RegionService, String) {
        let tag = UUID().uuidString.prefix(8)
        let fixes = "inproc://region-fixes-\(tag)"
        let config = try Configuration(program: "region-monitor", specs: RegionMonitorSettings.specs,
                                       arguments: ["--listen", "inproc://region-\(tag)", "--bus-pub", "inproc://bus-pub-\(tag)",
                                                   "--bus-sub", "inproc://bus-sub-\(tag)", "--fix-listen", fixes, "--data-dir", folder.path,
                                                   "--log-level", "error"] + arguments,
                                       environment: [:])
        let host = try ServiceHost(options: RegionMonitorSettings.common, config: config, clock: clock)
        let service = RegionService(host: host, catalog: catalog, settings: try RegionMonitorSettings(config))
        try service.start()
        return (host, service, fixes)
    }

    /// The service started again on the same file (as after an outage), at the clock's time.
    func restart() throws {
        host.db.close()
        (host, service, fixEndpoint) = try Self.open(folder: folder, clock: clock, catalog: catalog, arguments: arguments)
    }

    // MARK: Inputs

    private func consume(_ type: EventType, stream: String, _ body: EventBody) throws {
        seq += 1
        let envelope = Envelope(type: type, source: "beacon-ingest", stream: stream, seq: seq, time: clock.now(), body: body)
        try host.events.write { try service.consume(envelope) }
    }

    /// A sighting of a Caffè Macs beacon (station `minor`) at the clock's time, as beacon-ingest
    /// sends it for a phone that has heard the beacon for a while (a mean of 15 readings).
    func sighting(_ deviceId: String, minor: Int = 1, proximity: Proximity = .near) throws {
        let beacon = BeaconIdentity(uuid: catalog.beaconUUID, major: Self.macsMajor, minor: minor)
        try consume(.sightingReported, stream: "sighting", .sighting(Sighting(deviceId: deviceId, beacon: beacon, rssi: -60, measuredPower: -59, accuracy: 1.5,
                                                                       proximity: proximity, observedAt: clock.now(), meanRssi: -62.5, readings: 15)))
    }

    /// The device's location authorization as of the clock's time.
    /// One `sighting.batch` of a Caffè Macs beacon (station `minor`) for each of `devices`, at the clock's time.
    func sightings(_ devices: [String], minor: Int = 1) throws {
        let beacon = BeaconIdentity(uuid: catalog.beaconUUID, major: Self.macsMajor, minor: minor)
        try consume(.sightingBatch, stream: "sighting", .sightings(SightingBatch(sightings: devices.map {
            Sighting(deviceId: $0, beacon: beacon, rssi: -60, measuredPower: -59, accuracy: 1.5, proximity: .near, observedAt: clock.now(),
                     meanRssi: -62.5, readings: 15)
        })))
    }

    func status(_ deviceId: String, _ authorization: Authorization, foreground: Bool = true, precise: Bool = true) throws {
        try consume(.deviceStatus, stream: "device", .deviceStatus(DeviceStatus(deviceId: deviceId, authorization: authorization, foreground: foreground,
                                                                                 precise: precise, monitoringAvailable: true, rangingAvailable: true,
                                                                                 changedAt: clock.now())))
    }

    /// A precise fix at Caffè Macs (or `metersNorth` of it) observed at the clock's time, pushed to
    /// the fix channel's socket as beacon-ingest pushes it, and drained.
    func fix(_ deviceId: String, metersNorth: Double = 0, accuracy: Double = 10, precise: Bool = true) throws {
        let fix = LocationFix(deviceId: deviceId, latitude: Self.macs.latitude + metersNorth / 111_195, longitude: Self.macs.longitude,
                              horizontalAccuracy: accuracy, precise: precise, observedAt: clock.now())
        let envelope = Envelope(type: .locationFix, source: "beacon-ingest", stream: "fix", seq: 0, time: clock.now(), body: .locationFix(fix))
        let push = try Socket(host.context, .push)
        defer { push.close() }
        try push.setLinger(milliseconds: 1_000)
        try push.connect(fixEndpoint)
        try push.send(multipart: [Data("location.fix.".utf8), Wire.encode(envelope)])
        // inproc hands the message over at once; the loop only covers the reader's wake-up.
        let before = service.consumedFixes
        for _ in 0..<200 where service.consumedFixes == before {
            try requireValue(service.fixChannel).drain()
            if service.consumedFixes == before { usleep(5_000) }
        }
        guard service.consumedFixes > before else { throw FixNotDelivered() }
    }

    // MARK: Requests and what was announced

    /// A request through the router, encoded and decoded as the wire carries it.
    func call<Body: Codable & Sendable, Result: Codable & Sendable>(_ op: String, _ body: Body, as result: Result.Type) throws -> Result {
        try Wire.decodeReply(host.requests.router.handle(Wire.encode(Request(op: op, body: body))), body: Result.self).get()
    }

    func record(_ deviceId: String, _ identifier: String = "caffe-macs", monitor: String = "campus") throws -> RegionEvent? {
        try call(Op.monitorRecord, RecordQuery(monitor: monitor, identifier: identifier, deviceId: deviceId), as: MonitorRecord.self).lastEvent
    }

    func nearest(_ deviceId: String) throws -> NearestAnswer {
        try call(Op.nearestGet, DeviceQuery(deviceId: deviceId), as: NearestAnswer.self)
    }

    func confirm(_ deviceId: String, acquiredAt: Timestamp) throws -> LocationConfirmation {
        try call(Op.locationConfirm, ConfirmLocation(deviceId: deviceId, code: "https://clip.campus.example/caffe-macs/counter", acquiredAt: acquiredAt,
                                                     cafeId: "caffe-macs"), as: LocationConfirmation.self)
    }

    /// Everything published on the region stream so far, in order.
    func announced() throws -> [Envelope] {
        try call(Op.replay, ReplayRequest(stream: "region", fromSeq: 0, limit: 1_000), as: ReplayReply.self).events.map(\.envelope)
    }

    /// The region events published so far (`region.event.<monitor>.`).
    func regionEvents() throws -> [RegionEvent] {
        try announced().compactMap { if case .region(let event) = $0.body { event } else { nil } }
    }

    func health() throws -> [String: String] {
        try call(Op.health, Empty(), as: HealthStatus.self).details
    }

    struct FixNotDelivered: Error {}

    func count(_ sql: String, _ deviceId: String) throws -> Int {
        try host.db.query(sql, deviceId).first?.int("n") ?? -1
    }
}
