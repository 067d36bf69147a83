import Campus
import Foundation
import Messages
import OrderCore
import ServiceRuntime

/// The shell of order-service: decodes requests, loads what the core rules need from its store,
/// calls them, and writes each decision with its events in one transaction. Its state is its own
/// SQLite file; it learns where devices are only from region events.
public final class OrderService {
    let host: ServiceHost
    let catalog: CampusCatalog
    let holdSeconds: Double
    let region: RegionQueries
    let store: OrderStore
    let presenter = MenuPresenter()
    let times = PickupTimeFormatter()
    var now: Timestamp { host.clock.now() }

    /// The service on `host` (its database, sockets and clock); `start()` migrates and registers it.
    public init(host: ServiceHost, catalog: CampusCatalog, holdSeconds: Double, region: RegionQueries) {
        self.host = host
        self.catalog = catalog
        self.holdSeconds = holdSeconds
        self.region = region
        store = OrderStore(db: host.db)
    }

    /// Migrates the schema and registers the ops, the subscription, the timers and health details.
    public func start() throws {
        try store.migrate()
        let router = host.router
        router.on(Op.preferenceSet, PreferenceRequest.self) { [unowned self] body, _ in try self.setPreference(body) }
        router.on(Op.preferenceGet, PreferenceRequest.self) { [unowned self] body, _ in try self.preference(body) }
        router.on(Op.menuGet, MenuRequest.self) { [unowned self] body, _ in try self.menu(body) }
        router.on(Op.windowsList, WindowsRequest.self) { [unowned self] body, _ in try self.windows(body) }
        router.on(Op.windowReserve, ReserveRequest.self) { [unowned self] body, _ in try self.reserve(body) }
        router.on(Op.orderPlace, PlaceOrderRequest.self) { [unowned self] body, _ in try self.place(body) }
        router.on(Op.orderGet, OrderQuery.self) { [unowned self] body, _ in try self.order(body) }
        router.on(Op.orderCancel, CancelOrderRequest.self) { [unowned self] body, _ in try self.cancel(body) }
        router.on(Op.orderPickup, OrderQuery.self) { [unowned self] body, _ in try self.pickup(body) }
        router.on(Op.orderHistory, OrderQuery.self) { [unowned self] body, _ in try self.history(body) }
        router.on(Op.orderClaim, ClaimOrdersRequest.self) { [unowned self] body, _ in try self.claim(body) }
        try host.subscribe(["region.", "kitchen."], durableStreams: ["region", "kitchen"]) { [unowned self] _, envelope in
            try self.consume(envelope)
        }
        host.reactor.every(30, name: "orders.noShow") { [unowned self] in try self.markNoShows() }
        host.reactor.every(3600, name: "idempotency.expire") { [unowned self] in try self.expireIdempotencyKeys() }
        host.addHealthDetails { [unowned self] in
            ["orders.open": "\(store.openOrderCount() ?? -1)", "cafes": "\(catalog.cafes.count)"]
        }
    }

    // MARK: Preferences and menus

    func setPreference(_ request: PreferenceRequest) throws -> PreferenceView {
        try RequestRules.validateID(request.userId, field: "userId")
        guard let preference = request.preference else { throw ServiceError(.invalidField, "missing field preference") }
        if case .cafe(let id) = preference { _ = try RequestRules.cafe(id, in: catalog) }
        try host.write { try store.setPreference(preference, of: request.userId) }
        return PreferenceView(userId: request.userId, preference: preference)
    }

    func preference(_ request: PreferenceRequest) throws -> PreferenceView {
        try RequestRules.validateID(request.userId, field: "userId")
        return PreferenceView(userId: request.userId, preference: try store.preference(of: request.userId))
    }

    func menu(_ request: MenuRequest) throws -> MenuReply {
        try RequestRules.validateID(request.userId, field: "userId")
        if let deviceId = request.deviceId { try RequestRules.validateID(deviceId, field: "deviceId") }
        try RequestRules.validateLocale(request.locale)
        var inputs = MenuChooser.Inputs(preference: try store.preference(of: request.userId),
                                        nearestBeaconMajor: try request.deviceId.flatMap { try store.nearestBeaconMajor(deviceId: $0) },
                                        nearestCafeByLocation: nil, lastCafe: try store.lastCafe(of: request.userId))
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
}
