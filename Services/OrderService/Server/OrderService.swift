import Campus
import Foundation
import Messages
import OrderCore
import SQLite
import ServiceRuntime

/// The shell of order-service: decodes requests, calls the core rules, writes each change with its
/// events in one transaction. Its state is its own SQLite file; it learns where devices are only
/// from region events.
public final class OrderService {
    /// How long idempotency keys are kept (at least the 24 hours clients are promised).
    public static let idempotencyRetentionSeconds = 48.0 * 3600

    let host: ServiceHost
    let catalog: CampusCatalog
    let holdSeconds: Double
    let region: RegionQueries
    let presenter = MenuPresenter()
    let times = PickupTimeFormatter()
    var db: Database { host.db }
    var now: Timestamp { host.clock.now() }

    public init(host: ServiceHost, catalog: CampusCatalog, holdSeconds: Double, region: RegionQueries) {
        self.host = host
        self.catalog = catalog
        self.holdSeconds = holdSeconds
        self.region = region
    }

    public func start() throws {
        try db.migrate("order-service", OrderSchema.migrations)
        let router = host.router
        router.on(Op.preferenceSet, PreferenceRequest.self) { [unowned self] in try self.setPreference($0) }
        router.on(Op.preferenceGet, PreferenceRequest.self) { [unowned self] in
            try RequestRules.validateID($0.userId, field: "userId")
            return PreferenceView(userId: $0.userId, preference: try self.preference(of: $0.userId))
        }
        router.on(Op.menuGet, MenuRequest.self) { [unowned self] in try self.menu($0) }
        router.on(Op.windowsList, WindowsRequest.self) { [unowned self] in try self.windows($0) }
        router.on(Op.windowReserve, ReserveRequest.self) { [unowned self] in try self.reserve($0) }
        router.on(Op.orderPlace, PlaceOrderRequest.self) { [unowned self] in try self.place($0) }
        router.on(Op.orderGet, OrderQuery.self) { [unowned self] in try self.order($0) }
        router.on(Op.orderCancel, CancelOrderRequest.self) { [unowned self] in try self.cancel($0) }
        router.on(Op.orderPickup, OrderQuery.self) { [unowned self] in try self.pickup($0) }
        router.on(Op.orderHistory, OrderQuery.self) { [unowned self] in try self.history($0) }
        router.on(Op.orderClaim, ClaimOrdersRequest.self) { [unowned self] in try self.claim($0) }
        try host.subscribe(["region.", "kitchen."], durableStreams: ["region", "kitchen"]) { [unowned self] _, envelope in
            try self.consume(envelope)
        }
        host.reactor.every(30, name: "orders.noShow") { [unowned self] in try self.markNoShows() }
        host.reactor.every(3600, name: "idempotency.expire") { [unowned self] in try self.expireIdempotencyKeys() }
        host.addHealthDetails { [unowned self] in
            let open = (try? db.query("SELECT COUNT(*) AS n FROM orders WHERE state IN ('placed','accepted','preparing','ready')").first?.int("n")) ?? -1
            return ["orders.open": "\(open)", "cafes": "\(catalog.cafes.count)"]
        }
    }

    // MARK: Cafés and preferences

    func cafe(_ id: String) throws(ServiceError) -> Cafe {
        guard let cafe = catalog.cafe(id) else { throw ServiceError(.unknownCafe, "no café \"\(id.prefix(40))\" on this campus") }
        return cafe
    }

    func validateLocale(_ locale: String) throws(ServiceError) {
        guard isValidLocaleIdentifier(locale) else { throw ServiceError(.invalidField, "locale \"\(locale.prefix(40))\" is not a locale identifier like en_US") }
    }

    func setPreference(_ request: PreferenceRequest) throws -> PreferenceView {
        try RequestRules.validateID(request.userId, field: "userId")
        guard let preference = request.preference else { throw ServiceError(.invalidField, "missing field preference") }
        if case .cafe(let id) = preference { _ = try cafe(id) }
        try host.write {
            let cafeId: String? = if case .cafe(let id) = preference { id } else { nil }
            try db.run("INSERT INTO preferences (user_id, kind, cafe_id) VALUES (?, ?, ?) ON CONFLICT(user_id) DO UPDATE SET kind = excluded.kind, cafe_id = excluded.cafe_id",
                       request.userId, cafeId == nil ? "closestToMe" : "cafe", cafeId)
        }
        return PreferenceView(userId: request.userId, preference: preference)
    }

    func preference(of userId: String) throws -> LocationPreference {
        guard let row = try db.query("SELECT kind, cafe_id FROM preferences WHERE user_id = ?", userId).first else { return .closestToMe }
        if row.string("kind") == "cafe", let id = row.optionalString("cafe_id") { return .cafe(id) }
        return .closestToMe
    }

    func menu(_ request: MenuRequest) throws -> MenuReply {
        try RequestRules.validateID(request.userId, field: "userId")
        if let deviceId = request.deviceId { try RequestRules.validateID(deviceId, field: "deviceId") }
        try validateLocale(request.locale)
        let preference = try preference(of: request.userId)
        let major = try request.deviceId.flatMap { try db.query("SELECT major FROM device_nearest WHERE device_id = ?", $0).first?.int("major") }
        let last = try db.query("SELECT cafe_id FROM last_cafe WHERE user_id = ?", request.userId).first?.string("cafe_id")
        var inputs = MenuChooser.Inputs(preference: preference, nearestBeaconMajor: major, nearestCafeByLocation: nil, lastCafe: last)
        // Ask region-monitor only when the rules before it have no answer: the call is a round trip.
        if let deviceId = request.deviceId, !MenuChooser.decidesBeforeLocation(inputs, catalog: catalog) {
            inputs.nearestCafeByLocation = nearestOpenCafe(deviceId: deviceId)
        }
        let choice = MenuChooser.choose(inputs, catalog: catalog)
        return presenter.menu(choice.cafe, rule: choice.rule, locale: request.locale)
    }

    /// The nearest café open now by the device's fresh location, as region-monitor ranks them.
    /// region-monitor not answering is logged and the next rule decides: a menu is still shown.
    func nearestOpenCafe(deviceId: String) -> String? {
        do {
            let answer = try region.nearest(deviceId: deviceId)
            let at = now
            return answer.cafesByDistance.first { id in catalog.cafe(id).map { PickupCalendar(cafe: $0).isOpen(at: at) } ?? false }
        } catch {
            host.logger.warning("region-monitor did not rank cafés for the menu; the next rule decides", ["device.id": deviceId, "error": "\(error)"])
            return nil
        }
    }

    // MARK: Pickup windows

    /// Places taken in a window: used by an order, or held and not expired.
    func taken(cafeId: String, start: Timestamp) throws -> Int {
        try db.query("SELECT COUNT(*) AS n FROM reservations WHERE cafe_id = ? AND window_start_ms = ? AND (status = 'used' OR (status = 'held' AND expires_ms > ?))",
                     cafeId, start.milliseconds, now.milliseconds).first?.int("n") ?? 0
    }

    func windowView(_ cafe: Cafe, start: Timestamp, locale: String) throws -> WindowView {
        let calendar = PickupCalendar(cafe: cafe)
        return WindowView(start: start, end: start.adding(seconds: calendar.windowSeconds),
                          label: times.format(start, timeZone: cafe.timeZone, locale: locale),
                          capacity: cafe.pickup.capacity, remaining: max(0, cafe.pickup.capacity - (try taken(cafeId: cafe.id, start: start))))
    }

    func windows(_ request: WindowsRequest) throws -> WindowsReply {
        let cafe = try cafe(request.cafeId)
        try validateLocale(request.locale)
        let count = request.count ?? 8
        guard (1...96).contains(count) else { throw ServiceError(.invalidField, "count \(count) must be 1…96") }
        let starts = PickupCalendar(cafe: cafe).windows(after: now, count: count)
        return WindowsReply(cafeId: cafe.id, windows: try starts.map { try windowView(cafe, start: $0, locale: request.locale) })
    }

    func reserve(_ request: ReserveRequest) throws -> ReservationView {
        let cafe = try cafe(request.cafeId)
        try validateLocale(request.locale)
        if let userId = request.userId { try RequestRules.validateID(userId, field: "userId") }
        let calendar = PickupCalendar(cafe: cafe)
        guard request.start > now else {
            let next = calendar.windows(after: now, count: 1).first
            throw ServiceError(.windowPast, "the window at \(request.start) has already started" + (next.map { "; the next one starts at \($0)" } ?? ""),
                               details: next.map { ["nextStart": "\($0)"] })
        }
        guard calendar.isWindowStart(request.start) else {
            let next = calendar.windows(after: request.start.adding(seconds: -1), count: 1).first
            let why = calendar.isAligned(request.start) ? "is closed then" : "has no pickup window starting then"
            throw ServiceError(.windowClosed, "\(cafe.name) \(why) (\(request.start))" + (next.map { "; the next window starts at \($0)" } ?? ""),
                               details: next.map { ["nextStart": "\($0)"] })
        }
        return try host.write {
            // Count and insert in one IMMEDIATE transaction: two clients racing for the last place cannot both win.
            guard try taken(cafeId: cafe.id, start: request.start) < cafe.pickup.capacity else {
                let next = try calendar.windows(after: request.start, count: 96).first { try taken(cafeId: cafe.id, start: $0) < cafe.pickup.capacity }
                throw ServiceError(.windowFull, "the \(times.format(request.start, timeZone: cafe.timeZone, locale: request.locale)) window at \(cafe.name) is full"
                                   + (next.map { "; the next free one is \(times.format($0, timeZone: cafe.timeZone, locale: request.locale)) (\($0))" } ?? ""),
                                   details: next.map { ["nextFreeStart": "\($0)"] })
            }
            let id = "res_" + UUID().uuidString.lowercased()
            let expires = now.adding(seconds: holdSeconds)
            try db.run("INSERT INTO reservations (reservation_id, cafe_id, window_start_ms, user_id, status, expires_ms) VALUES (?, ?, ?, ?, 'held', ?)",
                       id, cafe.id, request.start.milliseconds, request.userId, expires.milliseconds)
            return ReservationView(reservationId: id, cafeId: cafe.id, window: try windowView(cafe, start: request.start, locale: request.locale), expiresAt: expires)
        }
    }
}
