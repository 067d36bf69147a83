import Campus
import Foundation
import Messages
@testable import OrderServer
import ServiceRuntime
import Synchronization
import TestSupport

/// region-monitor's answers, set by the test; it records what order-service asked.
/// (A fake for this unit test of order-service's shell only: the integration tests use the real one.)
final class ScriptedRegion: RegionQueries {
    var nearestAnswer: Result<NearestAnswer, ServiceError>?
    var confirmAnswer: Result<LocationConfirmation.Result, ServiceError> = .success(.yes)
    var confirmReason: LocationConfirmation.Reason?
    private(set) var confirmations: [ConfirmLocation] = []
    private(set) var nearestCalls = 0

    func nearest(deviceId: String) throws -> NearestAnswer {
        nearestCalls += 1
        guard let nearestAnswer else { return NearestAnswer(deviceId: deviceId, beacon: nil, proximity: nil, cafeId: nil, stationId: nil, cafesByDistance: [], date: Timestamp(milliseconds: 0)) }
        return try nearestAnswer.get()
    }

    func confirm(_ request: ConfirmLocation) throws -> LocationConfirmation {
        confirmations.append(request)
        let result = try confirmAnswer.get()
        return LocationConfirmation(deviceId: request.deviceId ?? "", code: request.code, result: result, reason: result == .disallowed ? confirmReason : nil)
    }
}

/// order-service's shell on a real SQLite file in a temporary folder, its clock in the test's
/// hand. Its sockets bind in-process endpoints nobody else uses; requests are calls.
final class OrderHarness {
    /// Monday 23 November 2026, 12:00 in Cupertino (20:00 UTC).
    static let monday = Timestamp(milliseconds: 1_795_464_000_000)
    /// Saturday 28 November 2026, 12:00 in Cupertino: Parmer Lane, Munich, London and Tokyo are closed.
    static let saturday = Timestamp(milliseconds: 1_795_896_000_000)

    static var campusPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/campus.json").path
    }

    let clock: ManualClock
    let region = ScriptedRegion()
    let catalog: CampusCatalog
    let host: ServiceHost
    let service: OrderService
    let folder: URL
    /// Where the service's consumers connect for the bus (in-process: a test may bind it).
    let busSub: String

    init(start: Timestamp = OrderHarness.monday, holdSeconds: Double = 600) throws {
        clock = ManualClock(start)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("order-server-\(UUID().uuidString.prefix(8))")
        let tag = UUID().uuidString.prefix(8)
        busSub = "inproc://bus-sub-\(tag)"
        let config = try Configuration(program: "order-service", specs: OrderSettings.common.specs,
                                       arguments: ["--listen", "inproc://orders-\(tag)", "--bus-pub", "inproc://bus-pub-\(tag)",
                                                   "--bus-sub", "inproc://bus-sub-\(tag)", "--data-dir", folder.path, "--log-level", "error"],
                                       environment: [:])
        catalog = try CampusCatalog.load(path: Self.campusPath)
        host = try ServiceHost(options: OrderSettings.common, config: config, clock: clock)
        service = OrderService(host: host, catalog: catalog, holdSeconds: holdSeconds, region: region)
        try service.start()
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func count(_ sql: String) throws -> Int { try host.db.query(sql).first?.int("n") ?? -1 }

    /// The next window of a café and a place held in it (for a guest unless a user is named).
    func reserve(_ cafeId: String = "caffe-macs", user: String? = nil) throws -> ReservationView {
        let window = try requireValue(service.windows(WindowsRequest(cafeId: cafeId, locale: "en_US", count: 1)).windows.first)
        return try service.reserve(ReserveRequest(cafeId: cafeId, start: window.start, userId: user, locale: "en_US"))
    }

    func kioskOrder(_ reservation: ReservationView, key: String = "kiosk-\(UUID().uuidString.prefix(8))") throws -> OrderView {
        try service.place(PlaceOrderRequest(idempotencyKey: key, channel: .kiosk, userId: nil, deviceId: "kiosk-1", cafeId: reservation.cafeId,
                                            reservationId: reservation.reservationId, items: [OrderItemRequest(itemId: "burger", quantity: 1)],
                                            paymentToken: nil, locale: "en_US"))
    }
}

