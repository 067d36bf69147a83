import Campus
import Foundation
import Messages
import NotifyCore
@testable import NotifyServer
import SQLite
import ServiceRuntime
import Synchronization
import TestSupport

/// notification-service's shell on a real SQLite file in a temporary folder, its clock in the
/// test's hand. Its sockets bind in-process endpoints nobody else uses; requests and events are
/// calls. The catalog is the demo campus (deploy/campus.json), as the service needs one.
final class NotifyHarness {
    /// Monday 23 November 2026, 20:00 UTC.
    static let t0 = Timestamp(milliseconds: 1_795_464_000_000)

    let clock: ManualClock
    let folder: URL
    private(set) var host: ServiceHost
    private(set) var service: NotifyService
    /// Where the service's consumers connect for the bus (in-process: a test may bind it).
    private(set) var busSub = ""
    private var orderSeq: UInt64 = 0
    private var regionSeq: UInt64 = 0

    init(start: Timestamp = NotifyHarness.t0, retentionDays: Int = 30, leadSeconds: Double = 600,
         prepare: ((URL) throws -> Void)? = nil) throws {
        clock = ManualClock(start)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("notify-server-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try prepare?(folder.appendingPathComponent("notification-service.sqlite"))
        (host, service, busSub) = try Self.open(folder: folder, clock: clock, retentionDays: retentionDays, leadSeconds: leadSeconds)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    static var campusPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/campus.json").path
    }

    private static func open(folder: URL, clock: ManualClock, retentionDays: Int, leadSeconds: Double) throws -> (ServiceHost, NotifyService, String) {
        let tag = UUID().uuidString.prefix(8)
        let config = try Configuration(program: "notification-service", specs: NotifySettings.common.specs,
                                       arguments: ["--listen", "inproc://notify-\(tag)", "--bus-pub", "inproc://bus-pub-\(tag)",
                                                   "--bus-sub", "inproc://bus-sub-\(tag)", "--data-dir", folder.path, "--log-level", "error"],
                                       environment: [:])
        let host = try ServiceHost(options: NotifySettings.common, config: config, clock: clock)
        let service = NotifyService(host: host, catalog: try CampusCatalog.load(path: campusPath), schedule: PickupReminderSchedule(leadSeconds: leadSeconds), tickSeconds: 1,
                                    retention: try requireValue(NotificationRetention(days: retentionDays)))
        try service.start()
        return (host, service, "inproc://bus-sub-\(tag)")
    }

    /// The service started again on the same file (as after an outage), at the clock's time.
    func restart(retentionDays: Int = 30) throws {
        host.db.close()
        (host, service, busSub) = try Self.open(folder: folder, clock: clock, retentionDays: retentionDays, leadSeconds: 600)
    }

    func count(_ sql: String) throws -> Int { try host.db.query(sql).first?.int("n") ?? -1 }

    func register(_ deviceId: String, authorization: NotificationAuthorization = .authorized) throws {
        _ = try service.register(RegisterDevice(deviceId: deviceId, userId: nil, channel: "bus", language: "en", locale: "en_US", authorization: authorization))
    }

    /// An order of `deviceId` whose pickup window starts `startsIn` seconds from now.
    func order(_ orderId: String, _ state: OrderState, device: String = "phone-1", startsIn: Double = 900) -> OrderSnapshot {
        let start = clock.now().adding(seconds: startsIn)
        return OrderSnapshot(orderId: orderId, cafeId: "caffe-macs", cafeName: "Caffè Macs", timeZone: "America/Los_Angeles", currency: "USD", channel: .app,
                             userId: nil, deviceId: device, state: state, lines: [], total: 0, pickupStart: start, pickupEnd: start.adding(seconds: 900),
                             placedAt: clock.now(), customerHere: false)
    }

    /// Applies an order event as the stream follower does: in one transaction.
    func apply(_ type: EventType, _ order: OrderSnapshot) throws {
        orderSeq += 1
        let envelope = Envelope(type: type, source: "order-service", stream: "order", seq: orderSeq, time: clock.now(),
                                body: .order(OrderEvent(order: order, previous: nil, reason: nil, at: clock.now())))
        try host.events.write { try service.consume(envelope) }
    }

    /// The device arrives at a café: the campus monitor's condition for it is satisfied.
    func arrive(_ deviceId: String, at cafeId: String) throws {
        regionSeq += 1
        let event = RegionEvent(monitor: "campus", identifier: cafeId, deviceId: deviceId, state: .satisfied, refinement: nil, flags: [], date: clock.now())
        let envelope = Envelope(type: .regionEvent, source: "region-monitor", stream: "region", seq: regionSeq, time: clock.now(), body: .region(event))
        try host.events.write { try service.consume(envelope) }
    }

    /// A ready order for the device: one orderReady notification (undeliverable when the device may not be notified).
    @discardableResult
    func readyNotification(_ orderId: String, device: String = "phone-1") throws -> String {
        try apply(.orderReady, order(orderId, .ready, device: device))
        return try requireValue(host.db.query("SELECT notification_id FROM notifications WHERE once_key = ? AND device_id = ?", orderId, device).first)
            .string("notification_id")
    }

    func inbox(_ deviceId: String = "phone-1", since: String? = nil) throws -> [String] {
        try service.inbox(InboxQuery(deviceId: deviceId, sinceId: since, limit: 500)).notifications.map(\.notificationId)
    }

    func health() throws -> [String: String] {
        let reply = host.requests.router.handle(Data(#"{"op":"health","id":"h1","body":{}}"#.utf8))
        return try requireValue(Wire.decodeReply(reply, body: HealthStatus.self).body).details
    }
}

