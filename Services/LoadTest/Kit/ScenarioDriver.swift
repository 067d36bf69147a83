import Campus
import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// Drives the Caffè Macs scenario once against a running platform, timing each step from the
/// moment the request was sent to the moment its effect was seen on the bus.
public final class ScenarioDriver {
    struct Endpoints {
        var ingest: String, orders: String, kitchen: String, notify: String, busSub: String
    }

    /// One step of the scenario and how long it took: a row of `--json`'s array.
    public struct Measurement: Codable, Sendable {
        public var step: String
        public var milliseconds: Double
    }

    private let context: Context
    private let endpoints: Endpoints
    private let catalog: CampusCatalog
    private let timeout: Double
    private let security: LoadSecurity

    init(context: Context, endpoints: Endpoints, catalog: CampusCatalog, timeout: Double, security: LoadSecurity) {
        self.context = context
        self.endpoints = endpoints
        self.catalog = catalog
        self.timeout = timeout
        self.security = security
    }

    func run() throws -> [Measurement] {
        guard let cafe = catalog.cafe(catalog.defaultCafe), let station = cafe.stations.first, let item = cafe.menu.first else {
            throw ServiceError(.internalError, "the campus has no default café with a station and a menu")
        }
        let device = "load-\(UUID().uuidString.prefix(8).lowercased())"
        let user = "load-user-\(device.suffix(8))"
        // Deployed mode: the phone acts with its own key, the café's kitchen with its own.
        let phoneKey = "\(device)-phone", kitchenKey = "\(device)-kitchen"
        try security.mint([LoadSecurity.Mint(name: phoneKey, role: .phone, deviceId: device, userId: user),
                           LoadSecurity.Mint(name: kitchenKey, role: .kitchen, cafeId: cafe.id)])
        defer { security.revokeMinted() }
        let phone: String? = security.isDeployed ? phoneKey : nil, chef: String? = security.isDeployed ? kitchenKey : nil
        if let phone, let chef {
            try security.awaitAccepted(peer: endpoints.ingest, defaultServer: "beacon-ingest", as: phone, op: Op.ingestBatch, body: IngestBatch(reports: []), context: context)
            try security.awaitAccepted(peer: endpoints.orders, defaultServer: "order-service", as: phone, op: Op.preferenceGet, body: PreferenceRequest(userId: user), context: context)
            try security.awaitAccepted(peer: endpoints.notify, defaultServer: "notification-service", as: phone, op: Op.reminderList,
                                       body: ReminderQuery(deviceId: device), context: context)
            try security.awaitAccepted(peer: endpoints.kitchen, defaultServer: "kitchen-display", as: chef, op: Op.kdsCounts, body: CountsQuery(cafeId: cafe.id), context: context)
        }
        let sub = try Socket(context, .sub)
        defer { sub.close() }
        try sub.setLinger(milliseconds: 0)
        for prefix in ["region.event.", "order.", "notify.delivery."] { try sub.subscribe(prefix) }
        try security.connectToBus(sub, peer: endpoints.busSub)
        let ingest = try security.client(context: context, peer: endpoints.ingest, defaultServer: "beacon-ingest", as: phone)
        let orders = try security.client(context: context, peer: endpoints.orders, defaultServer: "order-service", as: phone)
        let kitchen = try security.client(context: context, peer: endpoints.kitchen, defaultServer: "kitchen-display", as: chef)
        let notify = try security.client(context: context, peer: endpoints.notify, defaultServer: "notification-service", as: phone)
        defer { [ingest, orders, kitchen, notify].forEach { $0.close() } }
        usleep(300_000)  // let the subscription reach the publishers through the bus

        var results: [Measurement] = []
        func timed<T>(_ step: String, _ body: () throws -> T) rethrows -> T {
            let start = Reactor.monotonic()
            let value = try body()
            results.append(Measurement(step: step, milliseconds: (Reactor.monotonic() - start) * 1000))
            return value
        }
        func awaitEvent(_ prefix: String, since start: Double, step: String, _ match: (Envelope) -> Bool) throws {
            let deadline = start + timeout
            while Reactor.monotonic() < deadline {
                guard let frames = try sub.receiveMultipart(timeoutMilliseconds: 50), frames.count == 2 else { continue }
                let topic = String(decoding: frames[0], as: UTF8.self)
                guard topic.hasPrefix(prefix), let envelope = try? Wire.decodeEnvelope(frames[1]), match(envelope) else { continue }
                results.append(Measurement(step: step, milliseconds: (Reactor.monotonic() - start) * 1000))
                return
            }
            throw ServiceError(code: "loadtest.timeout", message: "\(step): nothing on \(prefix) within \(timeout) s")
        }

        _ = try timed("request: ingest status") {
            try ingest.call(Op.ingestReport, IngestReport(deviceId: device, status: DeviceStatusReport(authorization: .whenInUse, foreground: true)), as: IngestResult.self)
        }
        _ = try notify.call(Op.deviceRegister, RegisterDevice(deviceId: device, userId: user, channel: "bus", language: "en", locale: "en_US", authorization: .authorized), as: Registration.self)

        let sightingSent = Reactor.monotonic()
        _ = try timed("request: ingest sighting") {
            // The last three seconds of the phone's ranging, one reading a second, as an app batches
            // them: region-monitor names a café heard alone on three readings.
            let now = Timestamp(Date())
            return try ingest.call(Op.ingestReport, IngestReport(deviceId: device, sightings: (0..<3).map { ago in
                RangingReport(uuid: catalog.beaconUUID, major: cafe.beaconMajor, minor: station.minor, rssi: -60, measuredPower: -59,
                              timestamp: now.adding(seconds: Double(ago - 2)))
            }), as: IngestResult.self)
        }
        try awaitEvent("region.event.", since: sightingSent, step: "sighting → region event") {
            if case .region(let e) = $0.body { return e.deviceId == device && e.state == .satisfied }
            return false
        }
        _ = try timed("request: menu") { try orders.call(Op.menuGet, MenuRequest(userId: user, deviceId: device, locale: "en_US"), as: MenuReply.self) }
        let windows = try timed("request: windows") { try orders.call(Op.windowsList, WindowsRequest(cafeId: cafe.id, locale: "en_US", count: 96), as: WindowsReply.self) }
        guard let window = windows.windows.first(where: { $0.remaining > 0 }) else { throw ServiceError(.windowFull, "no free window at \(cafe.name)") }
        let reservation = try timed("request: reserve") {
            try orders.call(Op.windowReserve, ReserveRequest(cafeId: cafe.id, start: window.start, userId: user, locale: "en_US"), as: ReservationView.self)
        }
        let placedAt = Reactor.monotonic()
        let placed = try timed("request: place order") {
            try orders.call(Op.orderPlace, PlaceOrderRequest(idempotencyKey: "load-\(device)", channel: .app, userId: user, deviceId: device, cafeId: cafe.id,
                                                             reservationId: reservation.reservationId, items: [OrderItemRequest(itemId: item.id, quantity: 1)],
                                                             paymentToken: "tok_loadtestloadtest01", locale: "en_US"), as: OrderView.self)
        }
        let orderId = placed.order.orderId
        // Automatic bumps: as soon as the kitchen shows the tickets, bump each one.
        var bumped = Set<String>()
        let bumpDeadline = Reactor.monotonic() + timeout
        while bumped.count < Set(placed.order.lines.map(\.station)).count, Reactor.monotonic() < bumpDeadline {
            for ticket in try kitchen.call(Op.kdsTickets, TicketsQuery(cafeId: cafe.id), as: TicketsReply.self).tickets where ticket.orderId == orderId && !bumped.contains(ticket.ticketId) {
                _ = try kitchen.call(Op.kdsBump, TicketCommand(ticketId: ticket.ticketId), as: TicketView.self)
                bumped.insert(ticket.ticketId)
            }
            if bumped.isEmpty { usleep(2_000) }
        }
        results.append(Measurement(step: "order placed → tickets bumped", milliseconds: (Reactor.monotonic() - placedAt) * 1000))
        try awaitEvent("notify.delivery.\(device).", since: placedAt, step: "order placed → ready notification") {
            if case .notification(let n) = $0.body { return n.orderId == orderId }
            return false
        }
        return results
    }
}
