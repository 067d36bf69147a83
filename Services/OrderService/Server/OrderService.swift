import Campus
import Foundation
import Messages
import OrderCore
import Policy
import ServiceRuntime

/// The shell of order-service: decodes requests, loads what the core rules need from its store,
/// calls them, and writes each decision with its events in one transaction. Its state is its own
/// SQLite file; it learns where devices are only from region events.
public final class OrderService {
    let clock: any WallClock
    let logger: Logger
    let reactor: Reactor
    let requests: RequestServer
    let bus: BusSubscription
    let events: EventWriter
    /// The catalog in use: replaced whole by a reload (`use(_:)`), on the reactor's thread.
    private(set) var catalog: CampusCatalog
    let holdSeconds: Double
    let region: RegionQueries
    let store: OrderStore
    let presenter = MenuPresenter()
    let times = PickupTimeFormatter()
    var now: Timestamp { clock.now() }

    /// The service on `host` (its database, sockets and clock); `start()` migrates and registers it.
    public init(host: ServiceHost, catalog: CampusCatalog, holdSeconds: Double, region: RegionQueries) {
        clock = host.clock
        logger = host.logger
        reactor = host.reactor
        requests = host.requests
        bus = host.bus
        events = host.events
        self.catalog = catalog
        self.holdSeconds = holdSeconds
        self.region = region
        store = OrderStore(db: host.db)
    }

    /// Switches to a reloaded catalog: what comes next uses it; open orders and reservations
    /// keep what they were made with (their snapshots and window starts).
    public func use(_ catalog: CampusCatalog) { self.catalog = catalog }

    /// Migrates the schema and registers the ops, the subscription, the timers and health details.
    public func start() throws {
        try store.migrate()
        let router = requests.router
        // Every op is answered as the caller its connection proved (OrderScope), never as the body says.
        router.on(Op.menuAvailabilitySet, MenuAvailabilityRequest.self) { [unowned self] body, caller in try self.setAvailability(body, as: caller) }
        router.on(Op.preferenceSet, PreferenceRequest.self) { [unowned self] body, caller in try self.setPreference(body, as: caller) }
        router.on(Op.preferenceGet, PreferenceRequest.self) { [unowned self] body, caller in try self.preference(body, as: caller) }
        router.on(Op.menuGet, MenuRequest.self) { [unowned self] body, caller in try self.menu(body, as: caller) }
        router.on(Op.windowsList, WindowsRequest.self) { [unowned self] body, caller in try self.windows(body, as: caller) }
        router.on(Op.windowReserve, ReserveRequest.self) { [unowned self] body, caller in try self.reserve(body, as: caller) }
        router.on(Op.orderPlace, PlaceOrderRequest.self) { [unowned self] body, caller in try self.place(body, as: caller) }
        router.on(Op.orderGet, OrderQuery.self) { [unowned self] body, caller in try self.order(body, as: caller) }
        router.on(Op.orderCancel, CancelOrderRequest.self) { [unowned self] body, caller in try self.cancel(body, as: caller) }
        router.on(Op.orderPickup, OrderQuery.self) { [unowned self] body, caller in try self.pickup(body, as: caller) }
        router.on(Op.orderHistory, OrderQuery.self) { [unowned self] body, caller in try self.history(body, as: caller) }
        router.on(Op.orderClaim, ClaimOrdersRequest.self) { [unowned self] body, caller in try self.claim(body, as: caller) }
        // Two consumers, each its own socket and group commit: a kitchen's ready is applied at once,
        // not queued behind the thousands of region events a second that walking phones bring.
        let regions = try bus.subscribe(["region."], durableStreams: ["region"]) { [unowned self] _, envelope in try self.consume(envelope) }
        try bus.subscribe(["kitchen."], durableStreams: ["kitchen"]) { [unowned self] _, envelope in try self.consume(envelope) }
        // Region events only overwrite a device's nearest beacon or mark an order at most once: applied
        // twice they do nothing more, so their ids (thousands a second from walking phones) are not kept.
        regions.follower.ledger.unrecordedStreams = ["region"]
        reactor.every(30, name: "orders.noShow") { [unowned self] in try self.markNoShows() }
        requests.addHealthDetails { [unowned self] in
            ["orders.open": "\(store.openOrderCount() ?? -1)", "cafes": "\(catalog.cafes.count)"]
        }
    }

    // MARK: Preferences and menus

    /// `preference.set`: a phone sets only its own user's preference.
    func setPreference(_ request: PreferenceRequest, as caller: Caller) throws -> PreferenceView {
        let userId = try caller.actingUser(required: request.userId)
        try RequestRules.validateID(userId, field: "userId")
        guard let preference = request.preference else { throw ServiceError(.invalidField, "missing field preference") }
        if case .cafe(let id) = preference { _ = try RequestRules.cafe(id, in: catalog) }
        try events.write { try store.setPreference(preference, of: userId) }
        return PreferenceView(userId: userId, preference: preference)
    }

    /// `preference.get`: a phone reads only its own user's; the operator anyone's.
    func preference(_ request: PreferenceRequest, as caller: Caller) throws -> PreferenceView {
        let userId = try caller.actingUser(required: request.userId)
        try RequestRules.validateID(userId, field: "userId")
        return PreferenceView(userId: userId, preference: try store.preference(of: userId))
    }

    /// `menu.get`: for a phone, its own user and device (left-out ids are the phone's; a guest
    /// phone, an App Clip session, has no user, and the rules by user have nothing to say); for a
    /// kiosk, its café's menu, whatever user the body names, so a kiosk learns nothing of anyone's
    /// preference or last café; the operator reads any user's, and must name one.
    func menu(_ request: MenuRequest, as caller: Caller) throws -> MenuReply {
        if let userId = request.userId { try RequestRules.validateID(userId, field: "userId") }
        if let deviceId = request.deviceId { try RequestRules.validateID(deviceId, field: "deviceId") }
        try RequestRules.validateLocale(request.locale)
        if caller.role == .kiosk {
            let cafe = try RequestRules.cafe(caller.principal?.cafeId ?? "", in: catalog)
            return presenter.menu(cafe, rule: .preferredCafe, locale: request.locale, unavailable: try store.unavailableItems(cafeId: cafe.id))
        }
        let userId = caller.role == .phone ? try caller.actingUser(request.userId) : try caller.actingUser(required: request.userId)
        let deviceId = try caller.actingDevice(request.deviceId)
        var inputs = MenuChooser.Inputs(preference: try userId.map { try store.preference(of: $0) } ?? .closestToMe,
                                        nearestBeaconMajor: try deviceId.flatMap { try store.nearestBeaconMajor(deviceId: $0) },
                                        nearestCafeByLocation: nil, lastCafe: try userId.flatMap { try store.lastCafe(of: $0) })
        // Ask region-monitor only when the rules before it have no answer: the call is a round trip.
        if let deviceId, !MenuChooser.decidesBeforeLocation(inputs, catalog: catalog) {
            inputs.nearestCafeByLocation = nearestOpenCafe(deviceId: deviceId)
        }
        let choice = MenuChooser.choose(inputs, catalog: catalog)
        return presenter.menu(choice.cafe, rule: choice.rule, locale: request.locale, unavailable: try store.unavailableItems(cafeId: choice.cafe.id))
    }

    /// The nearest café open now by the device's fresh location, as region-monitor ranks them.
    /// region-monitor not answering is logged and the next rule decides: a menu is still shown.
    func nearestOpenCafe(deviceId: String) -> String? {
        do {
            let answer = try region.nearest(deviceId: deviceId)
            let at = now
            return answer.cafesByDistance.first { id in catalog.cafe(id).map { PickupCalendar(cafe: $0).isOpen(at: at) } ?? false }
        } catch {
            logger.warning("region-monitor did not rank cafés for the menu; the next rule decides", ["device.id": deviceId, "error": "\(error)"])
            return nil
        }
    }
}
